package agent

import (
	"fmt"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
)

// recorder is a logr.LogSink that keeps every line, for tests that count
// log lines. Its level is "ERROR" for errors, else "INFO" at V(0) and
// "DEBUG" above.
type recorder struct {
	mu    sync.Mutex
	lines []recorded
}

type recorded struct {
	msg   string
	attrs map[string]string
}

func (r *recorder) Init(logr.RuntimeInfo)          {}
func (r *recorder) Enabled(int) bool               { return true }
func (r *recorder) WithValues(...any) logr.LogSink { return r }
func (r *recorder) WithName(string) logr.LogSink   { return r }
func (r *recorder) Info(level int, msg string, kv ...any) {
	l := "INFO"
	if level > 0 {
		l = "DEBUG"
	}
	r.add(l, msg, kv)
}
func (r *recorder) Error(err error, msg string, kv ...any) {
	r.add("ERROR", msg, append(kv, "err", fmt.Sprint(err)))
}

func (r *recorder) add(level, msg string, kv []any) {
	m := map[string]string{"level": level}
	for i := 0; i+1 < len(kv); i += 2 {
		m[fmt.Sprint(kv[i])] = fmt.Sprint(kv[i+1])
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, recorded{msg, m})
}

// linesOf are the lines with message msg, each as its level and
// attributes.
func (r *recorder) linesOf(msg string) []map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []map[string]string
	for _, l := range r.lines {
		if l.msg == msg {
			out = append(out, l.attrs)
		}
	}
	return out
}

// TestRespondReportsTrimOncePerPoolVersion sends many requests whose
// replies leave options out, from concurrent goroutines, and checks that
// each option cut is logged once per load of the pool, and the replies
// counted when the table is replaced.
func TestRespondReportsTrimOncePerPoolVersion(t *testing.T) {
	rec := &recorder{}
	a := New(nil, WithLogger(logr.New(rec)))
	load := func(p *poolsource.Pool, rv string) {
		t.Helper()
		p.Metadata.ResourceVersion = rv
		if _, err := a.Apply(p); err != nil {
			t.Fatal(err)
		}
	}
	// burst sends n copies of each request from 4 goroutines.
	burst := func(n int, reqs ...*dhcpv4.DHCPv4) {
		t.Helper()
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for range n {
					for _, req := range reqs {
						if _, err := a.Respond(req); err != nil {
							t.Errorf("Respond: %v", err)
						}
					}
				}
			})
		}
		wg.Wait()
	}
	const trimmed, counted = "reply trimmed to fit the client", "replies trimmed under the replaced table"
	small, large := dhcp4test.Discover(t, dhcp4test.MACA), dhcp4test.Message(t, dhcp4test.MACB, dhcpv4.MessageTypeDiscover, dhcp4test.WithMaxSize(1500))
	bigRelay := dhcp4test.WithRawOption(t, dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, dhcp4test.WithMaxSize(1500)), 82, dhcp4test.RelayInfo(10_000))

	load(labtest.Pool(dhcp4test.LabAllocated()), "1")
	burst(25, small, large)
	if got := rec.linesOf(trimmed); len(got) != 0 {
		t.Fatalf("the lab pool fits every client, yet: %v", got)
	}

	load(labtest.BigPool(dhcp4test.LabAllocated(), 300, 200), "2")
	if _, err := a.Respond(small); err != nil { // first, so that the report names all four
		t.Fatal(err)
	}
	burst(25, small, large)
	want := []map[string]string{{
		"level": "INFO", "pool": "default/lab", "resourceVersion": "2", "mac": dhcp4test.MACA, "limit": "548",
		"cut": "6 dns 111/300; 15 domain name dropped; 42 ntp dropped; 119 domain search 0/200",
	}}
	got := rec.linesOf(trimmed)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("trim reports of version 2 after 201 trimmed replies (-want +got):\n%s", diff)
	}

	// An option no reply has cut under this version is reported once more.
	burst(5, bigRelay)
	got = rec.linesOf(trimmed)
	wantRelay := map[string]string{
		"level": "INFO", "pool": "default/lab", "resourceVersion": "2", "mac": dhcp4test.MACA, "limit": "1472",
		"cut": "82 relay agent info dropped",
	}
	if len(got) != len(want)+1 {
		t.Fatalf("after a relayed request: %d reports, want %d: %v", len(got), len(want)+1, got)
	}
	if diff := cmp.Diff(wantRelay, got[len(got)-1]); diff != "" {
		t.Errorf("report of the relayed request (-want +got):\n%s", diff)
	}

	// A new version reports afresh, and the replaced one's replies are counted.
	load(labtest.BigPool(dhcp4test.LabAllocated(), 300, 200), "3")
	if diff := cmp.Diff([]map[string]string{{"level": "INFO", "pool": "default/lab", "resourceVersion": "2", "count": "221"}},
		rec.linesOf(counted)); diff != "" {
		t.Errorf("count of trimmed replies (-want +got):\n%s", diff)
	}
	burst(25, small) // concurrent from the start: still one report
	got = rec.linesOf(trimmed)
	want3 := map[string]string{
		"level": "INFO", "pool": "default/lab", "resourceVersion": "3", "mac": dhcp4test.MACA, "limit": "548",
		"cut": "6 dns 111/300; 15 domain name dropped; 42 ntp dropped; 119 domain search 0/200",
	}
	if len(got) != len(want)+2 {
		t.Fatalf("after the next version: %d reports, want %d: %v", len(got), len(want)+2, got)
	}
	if diff := cmp.Diff(want3, got[len(got)-1]); diff != "" {
		t.Errorf("report of version 3 (-want +got):\n%s", diff)
	}
}

// BenchmarkReplyTrimmed is a reply that does not fit: the OFFER of the
// issue's pool, 300 name servers and 200 search domains, to a client that
// advertises no maximum message size, packed with and without overload.
func BenchmarkReplyTrimmed(b *testing.B) {
	a := newAgent(b, labtest.BigPool(dhcp4test.LabAllocated(), 300, 200), logr.Discard())
	req := dhcp4test.Discover(b, dhcp4test.MACA)
	b.ReportAllocs()
	for b.Loop() {
		resp, err := a.Respond(req)
		if err != nil {
			b.Fatal(err)
		}
		_ = resp.ToBytes()
	}
}
