package dhcp4wire

import (
	"bytes"
	"fmt"
	"net"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
)

// FuzzDecodeMessage: Decode fails exactly when FromBytes fails, and
// otherwise yields an equal message, decoding every input into the same
// reused message so that state left by an earlier input would show; it
// never changes its input.
func FuzzDecodeMessage(f *testing.F) {
	for _, c := range decodeCases(f) {
		f.Add(c.in)
	}
	var got dhcpv4.DHCPv4
	f.Fuzz(func(t *testing.T, in []byte) {
		want, wantErr := dhcpv4.FromBytes(in)
		before := bytes.Clone(in)
		err := Decode(&got, in)
		if !bytes.Equal(in, before) {
			t.Fatalf("Decode changed its input")
		}
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("Decode error = %v, FromBytes error = %v", err, wantErr)
		}
		if err != nil {
			return
		}
		if !reflect.DeepEqual(want, &got) {
			t.Fatalf("Decode differs from FromBytes (-want +got):\n%s", cmp.Diff(want, &got, messageOptions))
		}
	})
}

// BenchmarkDecode compares FromBytes, which Serve calls per datagram, with
// Decode into a reused message, on the same wire messages.
func BenchmarkDecode(b *testing.B) {
	messages := []struct {
		name string
		wire []byte
	}{
		{"perfdhcp DISCOVER", capturedMessages[0].wire(b)},
		{"REQUEST 50-54-55-61-82", perfdhcpRequest(b)},
	}
	for _, msg := range messages {
		b.Run(msg.name, func(b *testing.B) {
			b.Run("FromBytes", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := dhcpv4.FromBytes(msg.wire); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("Decode", func(b *testing.B) {
				var m dhcpv4.DHCPv4
				b.ReportAllocs()
				for b.Loop() {
					if err := Decode(&m, msg.wire); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// ExampleDecode decodes datagrams read into one reused buffer into
// one reused message, as a read loop does: what outlives the next read
// must be copied, since the message's slices are the buffer's bytes.
func ExampleDecode() {
	buf := make([]byte, 65507) // the largest UDP payload, as the agent reads
	var m dhcpv4.DHCPv4
	var aliased net.HardwareAddr
	var copied []string
	for _, mac := range []string{"52:54:00:aa:00:01", "52:54:00:aa:00:02"} {
		hw, _ := net.ParseMAC(mac)
		req, _ := dhcpv4.NewDiscovery(hw)
		n := copy(buf, req.ToBytes()) // what conn.ReadFrom(buf) would do
		if err := Decode(&m, buf[:n]); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(m.MessageType(), m.ClientHWAddr)
		if aliased == nil {
			aliased = m.ClientHWAddr
		}
		copied = append(copied, m.ClientHWAddr.String())
	}
	fmt.Println("kept without a copy:", aliased)
	fmt.Println("copied:", copied)
	// Output:
	// DISCOVER 52:54:00:aa:00:01
	// DISCOVER 52:54:00:aa:00:02
	// kept without a copy: 52:54:00:aa:00:02
	// copied: [52:54:00:aa:00:01 52:54:00:aa:00:02]
}
