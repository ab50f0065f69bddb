package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// NewCollector returns a Prometheus collector of the Stats that stats
// returns, read when scraped: counters dhcpagent_received_total,
// dhcpagent_replies_total{type="OFFER"|"ACK"|"NAK"},
// dhcpagent_declines_total, dhcpagent_probation_lifts_total,
// dhcpagent_releases_total,
// dhcpagent_drops_total, dhcpagent_send_errors_total,
// dhcpagent_send_dropped_total and
// dhcpagent_table_loads_total; gauges dhcpagent_leases,
// dhcpagent_probation_addresses, and dhcpagent_table_info{pool,
// resource_version} (always 1, labelled with the table being served).
func NewCollector(stats func() Stats) prometheus.Collector { return collector{stats} }

type collector struct{ stats func() Stats }

var (
	descReceived   = prometheus.NewDesc("dhcpagent_received_total", "Client messages handled.", nil, nil)
	descReplies    = prometheus.NewDesc("dhcpagent_replies_total", "Replies sent, by DHCP message type (an ACK to an INFORM is an ACK).", []string{"type"}, nil)
	descDeclines   = prometheus.NewDesc("dhcpagent_declines_total", "DECLINEs accepted: the address went on probation.", nil, nil)
	descLifts      = prometheus.NewDesc("dhcpagent_probation_lifts_total", "Probations lifted: the client asked to keep the address declined in its name.", nil, nil)
	descReleases   = prometheus.NewDesc("dhcpagent_releases_total", "RELEASEs accepted.", nil, nil)
	descDrops      = prometheus.NewDesc("dhcpagent_drops_total", "Client messages that got no reply, and DECLINEs and RELEASEs not accepted.", nil, nil)
	descSendErrors = prometheus.NewDesc("dhcpagent_send_errors_total", "Replies the socket refused.", nil, nil)
	descDropped    = prometheus.NewDesc("dhcpagent_send_dropped_total", "Replies dropped rather than waited for: the send buffer was full, or too full for a destination not known to be reachable.", nil, nil)
	descLoads      = prometheus.NewDesc("dhcpagent_table_loads_total", "Lease tables swapped in.", nil, nil)
	descLeases     = prometheus.NewDesc("dhcpagent_leases", "Leases in the table being served.", nil, nil)
	descProbation  = prometheus.NewDesc("dhcpagent_probation_addresses", "Declined addresses on probation.", nil, nil)
	descTable      = prometheus.NewDesc("dhcpagent_table_info", "The pool and resourceVersion of the table being served (value 1).", []string{"pool", "resource_version"}, nil)
)

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descReceived, descReplies, descDeclines, descLifts, descReleases, descDrops,
		descSendErrors, descDropped, descLoads, descLeases, descProbation, descTable} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	s := c.stats()
	counter := func(d *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter(descReceived, s.Received)
	counter(descReplies, s.Offers, "OFFER")
	counter(descReplies, s.Acks, "ACK")
	counter(descReplies, s.Naks, "NAK")
	counter(descDeclines, s.Declines)
	counter(descLifts, s.Lifts)
	counter(descReleases, s.Releases)
	counter(descDrops, s.Drops)
	counter(descSendErrors, s.SendErrors)
	counter(descDropped, s.SendDropped)
	counter(descLoads, s.Loads)
	gauge(descLeases, float64(s.Leases))
	gauge(descProbation, float64(s.OnProbation))
	if s.Pool != "" {
		gauge(descTable, 1, s.Pool, s.ResourceVersion)
	}
}
