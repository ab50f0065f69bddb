package dhcp4wire

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
)

func TestDecodeMessage(t *testing.T) {
	for _, tt := range decodeCases(t) {
		t.Run(tt.name, func(t *testing.T) {
			want, wantErr := dhcpv4.FromBytes(tt.in)
			if (wantErr != nil) != tt.wantErr {
				t.Fatalf("FromBytes error = %v, the case says error %t", wantErr, tt.wantErr)
			}
			var got dhcpv4.DHCPv4
			if err := Decode(&got, stale(t)); err != nil {
				t.Fatal(err)
			}
			in := bytes.Clone(tt.in)
			err := Decode(&got, in)
			if !bytes.Equal(in, tt.in) {
				t.Errorf("Decode changed its input")
			}
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("Decode error = %v, FromBytes error = %v", err, wantErr)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(want, &got, messageOptions); diff != "" {
				t.Errorf("Decode differs from FromBytes (-want +got):\n%s", diff)
			}
			if !reflect.DeepEqual(want, &got) {
				t.Errorf("Decode = %#v, not reflect.DeepEqual to FromBytes's %#v", &got, want)
			}
		})
	}
}

// TestDecodeMessageCoversEveryField fails when the dhcp library adds a
// field to DHCPv4 that Decode does not know it must set.
func TestDecodeMessageCoversEveryField(t *testing.T) {
	want := []string{"OpCode", "HWType", "HopCount", "TransactionID", "NumSeconds", "Flags",
		"ClientIPAddr", "YourIPAddr", "ServerIPAddr", "GatewayIPAddr", "ClientHWAddr",
		"ServerHostName", "BootFileName", "Options"}
	var got []string
	for _, f := range reflect.VisibleFields(reflect.TypeFor[dhcpv4.DHCPv4]()) {
		got = append(got, f.Name)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("dhcpv4.DHCPv4 fields (-Decode sets +the library has):\n%s", diff)
	}
}

// TestDecodeMessageAliases protects the documented cost model: byte slices
// alias the input, appending to one does not write into it, and the
// options map is reused.
func TestDecodeMessageAliases(t *testing.T) {
	in := perfdhcpRequest(t)
	var m dhcpv4.DHCPv4
	if err := Decode(&m, in); err != nil {
		t.Fatal(err)
	}
	opts := reflect.ValueOf(m.Options).UnsafePointer()
	aliased := map[string][]byte{
		"ClientIPAddr": m.ClientIPAddr, "YourIPAddr": m.YourIPAddr,
		"ServerIPAddr": m.ServerIPAddr, "GatewayIPAddr": m.GatewayIPAddr,
		"ClientHWAddr": m.ClientHWAddr,
	}
	for code, v := range m.Options {
		aliased["option "+dhcpv4.GenericOptionCode(code).String()] = v
	}
	for name, v := range aliased {
		if !aliases(in, v) {
			t.Errorf("%s does not alias the input", name)
		}
		if cap(v) != len(v) {
			t.Errorf("%s: capacity %d, want its length %d, so that append copies", name, cap(v), len(v))
		}
	}
	before := bytes.Clone(in)
	_ = append(m.ClientHWAddr, 0xff)
	_ = append(m.Options[dhcpv4.OptionServerIdentifier.Code()], 0xff)
	if !bytes.Equal(in, before) {
		t.Errorf("appending to a decoded slice wrote into the input")
	}

	if err := Decode(&m, discover(t, macB).ToBytes()); err != nil {
		t.Fatal(err)
	}
	if got := reflect.ValueOf(m.Options).UnsafePointer(); got != opts {
		t.Errorf("Decode allocated a new options map for a message that had one")
	}

	// A map grown by a message with every option code is replaced once,
	// then reused again.
	for i, b := range [][]byte{everyCode(), in, in} {
		opts = reflect.ValueOf(m.Options).UnsafePointer()
		if err := Decode(&m, b); err != nil {
			t.Fatal(err)
		}
		replaced := reflect.ValueOf(m.Options).UnsafePointer() != opts
		if want := i == 1; replaced != want {
			t.Errorf("message %d after the DISCOVER: options map replaced %t, want %t", i, replaced, want)
		}
	}
}

// aliases reports whether v lies within b's memory.
func aliases(b, v []byte) bool {
	if len(v) == 0 {
		return true
	}
	start := reflect.ValueOf(b).Pointer()
	p := reflect.ValueOf(v).Pointer()
	return p >= start && p+uintptr(len(v)) <= start+uintptr(len(b))
}

// TestDecodeMessageAllocs: a steady stream of client messages decoded
// into one reused message allocates nothing, including, once it is held,
// a non-empty sname and file that stay the same; nor does rejecting
// garbage.
func TestDecodeMessageAllocs(t *testing.T) {
	tests := []struct {
		name    string
		stream  [][]byte
		wantErr bool
	}{
		{"perfdhcp DISCOVER and REQUEST", [][]byte{capturedMessages[0].wire(t), perfdhcpRequest(t)}, false},
		{"every captured client message", func() [][]byte {
			var s [][]byte
			for _, c := range capturedMessages {
				s = append(s, c.wire(t))
			}
			return s
		}(), false},
		{"the same sname and file", [][]byte{withHeader(func(b []byte) {
			copy(b[offSName:], "tftp.lab.example")
			copy(b[offFile:], "pxelinux.0")
		})}, false},
		{"rejected messages", [][]byte{withOptions()[:100], withHeader(func(b []byte) { b[fixedLenNoCookie] = 0 }),
			withOptions(53, 1, 1), withOptions(53, 2, 1), withOptions(53)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m dhcpv4.DHCPv4
			for _, b := range tt.stream { // the map and the strings, once
				if err := Decode(&m, b); (err != nil) != tt.wantErr {
					t.Fatalf("Decode error = %v, want error %t", err, tt.wantErr)
				}
			}
			i := 0
			allocs := testing.AllocsPerRun(100, func() {
				if err := Decode(&m, tt.stream[i%len(tt.stream)]); (err != nil) != tt.wantErr {
					t.Fatalf("Decode error = %v, want error %t", err, tt.wantErr)
				}
				i++
			})
			if allocs != 0 {
				t.Errorf("Decode: %v allocations per message, want 0", allocs)
			}
		})
	}
}
