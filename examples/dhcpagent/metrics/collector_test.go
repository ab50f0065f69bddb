package metrics

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
)

// TestCollector: every series NewCollector documents, read from the Stats
// it is given when scraped, and the table info only while a pool is served.
func TestCollector(t *testing.T) {
	tests := []struct {
		name  string
		stats Stats
		want  map[string]float64 // series name{labels} → value
	}{
		{
			name: "serving",
			stats: Stats{Received: 9, Offers: 1, Acks: 2, Naks: 3, Declines: 4, Lifts: 5, Releases: 6, Drops: 7,
				SendErrors: 8, SendDropped: 13, Loads: 10, Pool: "default/lab", ResourceVersion: "42", Leases: 11, OnProbation: 12},
			want: map[string]float64{
				"dhcpagent_received_total": 9, `dhcpagent_replies_total{type="OFFER"}`: 1,
				`dhcpagent_replies_total{type="ACK"}`: 2, `dhcpagent_replies_total{type="NAK"}`: 3,
				"dhcpagent_declines_total": 4, "dhcpagent_probation_lifts_total": 5, "dhcpagent_releases_total": 6,
				"dhcpagent_drops_total": 7, "dhcpagent_send_errors_total": 8, "dhcpagent_table_loads_total": 10,
				"dhcpagent_send_dropped_total": 13,
				"dhcpagent_leases":             11, "dhcpagent_probation_addresses": 12,
				`dhcpagent_table_info{pool="default/lab",resource_version="42"}`: 1,
			},
		},
		{
			name:  "no table yet",
			stats: Stats{Received: 1, Drops: 1},
			want: map[string]float64{
				"dhcpagent_received_total": 1, `dhcpagent_replies_total{type="OFFER"}`: 0,
				`dhcpagent_replies_total{type="ACK"}`: 0, `dhcpagent_replies_total{type="NAK"}`: 0,
				"dhcpagent_declines_total": 0, "dhcpagent_probation_lifts_total": 0, "dhcpagent_releases_total": 0,
				"dhcpagent_drops_total": 1, "dhcpagent_send_errors_total": 0, "dhcpagent_table_loads_total": 0,
				"dhcpagent_send_dropped_total": 0,
				"dhcpagent_leases":             0, "dhcpagent_probation_addresses": 0,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := prometheus.NewPedanticRegistry()
			reg.MustRegister(NewCollector(func() Stats { return tt.stats }))
			families, err := reg.Gather()
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]float64{}
			for _, f := range families {
				for _, m := range f.GetMetric() {
					name := f.GetName()
					if labels := m.GetLabel(); len(labels) > 0 {
						name += "{"
						for i, l := range labels {
							if i > 0 {
								name += ","
							}
							name += l.GetName() + `="` + l.GetValue() + `"`
						}
						name += "}"
					}
					switch {
					case m.GetCounter() != nil:
						got[name] = m.GetCounter().GetValue()
					case m.GetGauge() != nil:
						got[name] = m.GetGauge().GetValue()
					}
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("scrape (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCountersRead: Read reports each counter in its field, and leaves
// the table's fields to the caller.
func TestCountersRead(t *testing.T) {
	var c Counters
	c.Received.Add(1)
	c.Offers.Add(2)
	c.Acks.Add(3)
	c.Naks.Add(4)
	c.Declines.Add(5)
	c.Lifts.Add(6)
	c.Releases.Add(7)
	c.Drops.Add(8)
	c.SendErrors.Add(9)
	c.Loads.Add(10)
	c.SendDropped.Add(11)
	c.Oversized.Add(12)
	c.UntrustedRelays.Add(13)
	want := Stats{Received: 1, Offers: 2, Acks: 3, Naks: 4, Declines: 5, Lifts: 6, Releases: 7, Drops: 8, SendErrors: 9, Loads: 10,
		SendDropped: 11, Oversized: 12, UntrustedRelays: 13}
	if diff := cmp.Diff(want, c.Read()); diff != "" {
		t.Errorf("Read (-want +got):\n%s", diff)
	}
}
