package lastgood

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// pool65000 is an IPPool's JSON with 65,000 allocations in a /16, as
// kubectl get -o json prints one: the largest pool an agent serves.
func pool65000() []byte {
	var b strings.Builder
	b.WriteString(`{"apiVersion":"network.vmnetkit.dev/v1alpha1","kind":"IPPool","metadata":{"name":"lab","namespace":"default","resourceVersion":"123456"},`)
	b.WriteString(`"spec":{"cidr":"10.77.0.0/16","serverIP":"10.77.0.2","router":"10.77.0.1","leaseTime":"1h"},"status":{"allocated":{`)
	for i := range 65000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"10.77.%d.%d":"52:54:00:00:%02x:%02x"`, 1+i/250, 1+i%250, i>>8, i&0xff)
	}
	b.WriteString(`}}}`)
	return []byte(b.String())
}

// TestSize65000: the copy of a 65,000-lease pool is its JSON and one
// header line, and comes back whole.
func TestSize65000(t *testing.T) {
	data := pool65000()
	s := New(t.TempDir(), "default/lab")
	start := time.Now()
	if err := s.Save(data, "123456", written); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	c, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Data) != len(data) {
		t.Fatalf("loaded %d bytes of %d", len(c.Data), len(data))
	}
	t.Logf("65,000 leases: %d bytes of pool, one Save took %v (see BenchmarkSave65000)", len(data), took)
}

// BenchmarkSave65000 is the write of a 65,000-lease pool's copy, the
// fsyncs included (the disk decides most of it).
func BenchmarkSave65000(b *testing.B) {
	data := pool65000()
	s := New(b.TempDir(), "default/lab")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := s.Save(data, "123456", written); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad65000 is the read and check of that copy.
func BenchmarkLoad65000(b *testing.B) {
	data := pool65000()
	s := New(b.TempDir(), "default/lab")
	if err := s.Save(data, "123456", written); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := s.Load(); err != nil {
			b.Fatal(err)
		}
	}
}
