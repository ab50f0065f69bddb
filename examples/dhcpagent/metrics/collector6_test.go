package metrics

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
)

// TestCollector6: every series NewCollector6 documents, read from the
// Stats it is given when scraped, registered beside NewCollector's
// without a clash.
func TestCollector6(t *testing.T) {
	stats := Stats{Received: 9, Offers: 1, Acks: 2, Declines: 4, Lifts: 5, Releases: 6, Drops: 7, SendErrors: 8,
		SendDropped: 13, Oversized: 14, UntrustedRelays: 15, BadChecksums: 16, Loads: 10, Pool: "default/lab", ResourceVersion: "42", Leases: 11, OnProbation: 12}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(NewCollector(func() Stats { return Stats{} }), NewCollector6(func() Stats { return stats }))
	want := map[string]float64{
		"dhcpagent_dhcpv6_received_total": 9, "dhcpagent_dhcpv6_replies_total": 1 + 2,
		"dhcpagent_dhcpv6_declines_total": 4, "dhcpagent_dhcpv6_probation_lifts_total": 5,
		"dhcpagent_dhcpv6_releases_total": 6, "dhcpagent_dhcpv6_drops_total": 7,
		"dhcpagent_dhcpv6_send_errors_total": 8, "dhcpagent_dhcpv6_leases": 11,
		"dhcpagent_dhcpv6_send_dropped_total": 13, "dhcpagent_dhcpv6_oversized_total": 14,
		"dhcpagent_dhcpv6_untrusted_relay_total": 15, "dhcpagent_dhcpv6_bad_checksums_total": 16,
	}
	got := map[string]float64{}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if _, ok := want[f.GetName()]; !ok {
			continue
		}
		for _, m := range f.GetMetric() {
			if m.GetCounter() != nil {
				got[f.GetName()] += m.GetCounter().GetValue()
			} else {
				got[f.GetName()] += m.GetGauge().GetValue()
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scrape, each family summed (-want +got):\n%s", diff)
	}
}
