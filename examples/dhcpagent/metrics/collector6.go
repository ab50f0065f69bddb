package metrics

import "github.com/prometheus/client_golang/prometheus"

// NewCollector6 is NewCollector for a server's DHCPv6 side, in series of
// their own so that each protocol is seen apart and the DHCPv4 series keep
// their meaning: counters dhcpagent_dhcpv6_received_total,
// dhcpagent_dhcpv6_replies_total{type="ADVERTISE"|"REPLY"} (Stats.Offers
// and Stats.Acks), dhcpagent_dhcpv6_declines_total,
// dhcpagent_dhcpv6_probation_lifts_total, dhcpagent_dhcpv6_releases_total,
// dhcpagent_dhcpv6_drops_total, dhcpagent_dhcpv6_send_errors_total,
// dhcpagent_dhcpv6_send_dropped_total, dhcpagent_dhcpv6_oversized_total,
// dhcpagent_dhcpv6_untrusted_relay_total,
// dhcpagent_dhcpv6_bad_checksums_total; gauge
// dhcpagent_dhcpv6_leases (the IPv6 table's leases). Table loads, the
// table's identity and the probation (one set for both families) are
// NewCollector's series.
func NewCollector6(stats func() Stats) prometheus.Collector { return collector6{stats} }

type collector6 struct{ stats func() Stats }

var (
	desc6Received   = prometheus.NewDesc("dhcpagent_dhcpv6_received_total", "DHCPv6 messages handled.", nil, nil)
	desc6Replies    = prometheus.NewDesc("dhcpagent_dhcpv6_replies_total", "DHCPv6 replies sent, by message type.", []string{"type"}, nil)
	desc6Declines   = prometheus.NewDesc("dhcpagent_dhcpv6_declines_total", "DHCPv6 DECLINEs accepted: the address went on probation.", nil, nil)
	desc6Lifts      = prometheus.NewDesc("dhcpagent_dhcpv6_probation_lifts_total", "Probations of IPv6 addresses lifted: the client asked to keep the address declined in its name.", nil, nil)
	desc6Releases   = prometheus.NewDesc("dhcpagent_dhcpv6_releases_total", "DHCPv6 RELEASEs of a client's address.", nil, nil)
	desc6Drops      = prometheus.NewDesc("dhcpagent_dhcpv6_drops_total", "DHCPv6 messages that got no reply, and DECLINEs not accepted.", nil, nil)
	desc6SendErrors = prometheus.NewDesc("dhcpagent_dhcpv6_send_errors_total", "DHCPv6 replies the socket refused.", nil, nil)
	desc6Dropped    = prometheus.NewDesc("dhcpagent_dhcpv6_send_dropped_total", "DHCPv6 replies dropped rather than waited for: the send buffer was full, or too full for a destination not known to be reachable.", nil, nil)
	desc6Oversized  = prometheus.NewDesc("dhcpagent_dhcpv6_oversized_total", "DHCPv6 replies refused: larger than their request allows.", nil, nil)
	desc6Untrusted  = prometheus.NewDesc("dhcpagent_dhcpv6_untrusted_relay_total", "Relayed DHCPv6 messages dropped: their relay is not listed (-relays6).", nil, nil)
	desc6Checksums  = prometheus.NewDesc("dhcpagent_dhcpv6_bad_checksums_total", "Datagrams the packet socket skipped for a bad UDP checksum.", nil, nil)
	desc6Leases     = prometheus.NewDesc("dhcpagent_dhcpv6_leases", "Leases in the IPv6 table being served.", nil, nil)
)

func (c collector6) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{desc6Received, desc6Replies, desc6Declines, desc6Lifts, desc6Releases,
		desc6Drops, desc6SendErrors, desc6Dropped, desc6Oversized, desc6Untrusted, desc6Checksums, desc6Leases} {
		ch <- d
	}
}

func (c collector6) Collect(ch chan<- prometheus.Metric) {
	s := c.stats()
	counter := func(d *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	counter(desc6Received, s.Received)
	counter(desc6Replies, s.Offers, "ADVERTISE")
	counter(desc6Replies, s.Acks, "REPLY")
	counter(desc6Declines, s.Declines)
	counter(desc6Lifts, s.Lifts)
	counter(desc6Releases, s.Releases)
	counter(desc6Drops, s.Drops)
	counter(desc6SendErrors, s.SendErrors)
	counter(desc6Dropped, s.SendDropped)
	counter(desc6Oversized, s.Oversized)
	counter(desc6Untrusted, s.UntrustedRelays)
	counter(desc6Checksums, s.BadChecksums)
	ch <- prometheus.MustNewConstMetric(desc6Leases, prometheus.GaugeValue, float64(s.Leases))
}
