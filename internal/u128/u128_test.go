package u128

import (
	"bytes"
	"math/big"
	"net/netip"
	"testing"

	"pgregory.net/rapid"
)

func toBig(u U128) *big.Int {
	b := new(big.Int).SetUint64(u.Hi)
	b.Lsh(b, 64)
	return b.Or(b, new(big.Int).SetUint64(u.Lo))
}

var mod = new(big.Int).Lsh(big.NewInt(1), 128)

func fromBig(b *big.Int) U128 {
	b = new(big.Int).Mod(b, mod)
	lo := new(big.Int).And(b, new(big.Int).SetUint64(^uint64(0)))
	hi := new(big.Int).Rsh(b, 64)
	return U128{hi.Uint64(), lo.Uint64()}
}

func genU128() *rapid.Generator[U128] {
	return rapid.Custom(func(t *rapid.T) U128 {
		pick := func(label string) uint64 {
			return rapid.OneOf(
				rapid.Uint64Range(0, 3),
				rapid.Uint64(),
				rapid.Uint64Range(^uint64(0)-3, ^uint64(0)),
			).Draw(t, label)
		}
		return U128{pick("hi"), pick("lo")}
	})
}

// TestArithmeticMatchesBig checks every operation against math/big.
func TestArithmeticMatchesBig(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		u := genU128().Draw(t, "u")
		v := genU128().Draw(t, "v")
		n := rapid.UintRange(0, 130).Draw(t, "n")
		bu, bv := toBig(u), toBig(v)
		if got, want := u.Add(v), fromBig(new(big.Int).Add(bu, bv)); got != want {
			t.Fatalf("Add = %v, want %v", got, want)
		}
		if got, want := u.Add64(v.Lo), fromBig(new(big.Int).Add(bu, new(big.Int).SetUint64(v.Lo))); got != want {
			t.Fatalf("Add64 = %v, want %v", got, want)
		}
		if got, want := u.Sub(v), fromBig(new(big.Int).Sub(bu, bv)); got != want {
			t.Fatalf("Sub = %v, want %v", got, want)
		}
		if got, want := u.Sub64(v.Lo), fromBig(new(big.Int).Sub(bu, new(big.Int).SetUint64(v.Lo))); got != want {
			t.Fatalf("Sub64 = %v, want %v", got, want)
		}
		if got, want := u.Cmp(v), bu.Cmp(bv); got != want {
			t.Fatalf("Cmp = %d, want %d", got, want)
		}
		if got, want := u.Less(v), bu.Cmp(bv) < 0; got != want {
			t.Fatalf("Less = %v, want %v", got, want)
		}
		if got, want := u.Rsh(n), fromBig(new(big.Int).Rsh(bu, n)); got != want {
			t.Fatalf("Rsh(%d) = %v, want %v", n, got, want)
		}
		if got, want := u.Lsh(n), fromBig(new(big.Int).Lsh(bu, n)); got != want {
			t.Fatalf("Lsh(%d) = %v, want %v", n, got, want)
		}
		if got, want := u.BitLen(), bu.BitLen(); got != want {
			t.Fatalf("BitLen = %d, want %d", got, want)
		}
		if got, want := u.String(), bu.String(); got != want {
			t.Fatalf("String = %s, want %s", got, want)
		}
		for level := uint(0); level < 23; level++ {
			want := new(big.Int).Rsh(bu, 6*level)
			want.And(want, big.NewInt(63))
			if got := u.Digit(level); uint64(got) != want.Uint64() {
				t.Fatalf("Digit(%d) = %d, want %d", level, got, want.Uint64())
			}
		}
		got, exact := u.Uint64()
		if exact != (u.Hi == 0) || (exact && got != u.Lo) || (!exact && got != ^uint64(0)) {
			t.Fatalf("Uint64 = %d, %v", got, exact)
		}
	})
}

func TestAddrRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		addr string
		want U128
	}{
		{"v4 zero", "0.0.0.0", U128{}},
		{"v4", "10.0.0.1", U128{Lo: 0x0a000001}},
		{"v4 max", "255.255.255.255", U128{Lo: 0xffffffff}},
		{"v6", "2001:db8::1", U128{Hi: 0x20010db800000000, Lo: 1}},
		{"v6 max", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Max},
		{"v4-mapped", "::ffff:10.0.0.1", U128{Lo: 0xffff0a000001}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := netip.MustParseAddr(tt.addr)
			got := FromAddr(a)
			if got != tt.want {
				t.Fatalf("FromAddr(%s) = %#v, want %#v", a, got, tt.want)
			}
			if back := got.Addr(a.Is4()); back != a {
				t.Fatalf("Addr = %s, want %s", back, a)
			}
		})
	}
	if got := FromAddr(netip.Addr{}); got != (U128{}) {
		t.Fatalf("FromAddr(zero) = %v, want 0", got)
	}
}

func TestFromAs16(t *testing.T) {
	tests := []struct {
		name string
		addr netip.Addr
		want U128
	}{
		{"zero Addr", netip.Addr{}, U128{}},
		{"v4 zero", netip.MustParseAddr("0.0.0.0"), U128{Lo: 0xffff00000000}},
		{"v4", netip.MustParseAddr("10.0.0.1"), U128{Lo: 0xffff0a000001}},
		{"v4 max", netip.MustParseAddr("255.255.255.255"), U128{Lo: 0xffffffffffff}},
		{"v4-mapped is the same integer", netip.MustParseAddr("::ffff:10.0.0.1"), U128{Lo: 0xffff0a000001}},
		{"v6", netip.MustParseAddr("2001:db8::1"), U128{Hi: 0x20010db800000000, Lo: 1}},
		{"v6 zone ignored", netip.MustParseAddr("fe80::1%eth0"), U128{Hi: 0xfe80000000000000, Lo: 1}},
		{"v6 max", netip.MustParseAddr("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"), Max},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FromAs16(tt.addr)
			if got != tt.want {
				t.Fatalf("FromAs16(%s) = %#v, want %#v", tt.addr, got, tt.want)
			}
			if !tt.addr.IsValid() {
				return
			}
			if got16 := From16(tt.addr.As16()); got16 != got {
				t.Fatalf("From16(As16()) = %#v, want %#v", got16, got)
			}
			if back := got.As16(); back != tt.addr.As16() {
				t.Fatalf("As16 = %x, want %x", back, tt.addr.As16())
			}
		})
	}
}

// TestAs16RoundTrip checks that From16 and As16 are inverses, and that
// FromAs16 orders addresses of either family as their 16-byte forms.
func TestAs16RoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		u, v := genU128().Draw(t, "u"), genU128().Draw(t, "v")
		if got := From16(u.As16()); got != u {
			t.Fatalf("From16(As16(%#v)) = %#v", u, got)
		}
		a, b := netip.AddrFrom16(u.As16()), netip.AddrFrom16(v.As16())
		if rapid.Bool().Draw(t, "unmap") {
			a = a.Unmap() // IPv4 when u is in ::ffff:0:0/96
		}
		x, y := a.As16(), b.As16()
		if got, want := FromAs16(a).Cmp(FromAs16(b)), bytes.Compare(x[:], y[:]); got != want {
			t.Fatalf("FromAs16(%s).Cmp(FromAs16(%s)) = %d, want %d", a, b, got, want)
		}
	})
}

func TestStringEdges(t *testing.T) {
	tests := []struct {
		u    U128
		want string
	}{
		{U128{}, "0"},
		{From64(10), "10"},
		{U128{Hi: 1}, "18446744073709551616"},
		{Max, "340282366920938463463374607431768211455"},
		{U128{Lo: 10_000_000_000_000_000_000}, "10000000000000000000"},
	}
	for _, tt := range tests {
		if got := tt.u.String(); got != tt.want {
			t.Errorf("%#v.String() = %s, want %s", tt.u, got, tt.want)
		}
	}
}

func TestByte(t *testing.T) {
	u := U128{Hi: 0x0f0e0d0c0b0a0908, Lo: 0x0706050403020100}
	for k := range 16 {
		if got := u.Byte(k); got != byte(k) {
			t.Errorf("Byte(%d) = %d, want %d", k, got, k)
		}
	}
}
