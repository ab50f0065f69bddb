package ipam

import (
	"encoding/json"
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go4.org/netipx"
)

const (
	count2to64      = "18446744073709551616"
	count2to128m1   = "340282366920938463463374607431768211455"
	count2to128     = "340282366920938463463374607431768211456"
	countIPv6Usable = "340282366920938463463374607427473244159" // ::/0 less ::, less ::ffff:0:0/96
)

func TestParseStrategy(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Strategy
		wantErr bool
	}{
		{name: "Lowest", in: "Lowest", want: Lowest},
		{name: "Sequential", in: "Sequential", want: Sequential},
		{name: "empty is the zero value", in: "", want: Lowest},
		{name: "lower case", in: "lowest", wantErr: true},
		{name: "upper case", in: "SEQUENTIAL", wantErr: true},
		{name: "trailing space", in: "Lowest ", wantErr: true},
		{name: "String of an unknown Strategy", in: "Strategy(2)", wantErr: true},
		{name: "number", in: "1", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseStrategy(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseStrategy(%q) error = %v, want error %t", tt.in, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("ParseStrategy(%q) = %v, want %v", tt.in, got, tt.want)
			}
			if err != nil && !strings.Contains(err.Error(), `ParseStrategy("`+tt.in+`")`) {
				t.Errorf("ParseStrategy(%q) error %q does not quote the input", tt.in, err)
			}
		})
	}
}

func TestStrategyJSON(t *testing.T) {
	tests := []struct {
		name string
		in   Strategy
		want string // "" for an error
	}{
		{name: "Lowest", in: Lowest, want: `"Lowest"`},
		{name: "Sequential", in: Sequential, want: `"Sequential"`},
		{name: "unknown", in: Strategy(9)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.in)
			if tt.want == "" {
				if err == nil || !strings.Contains(err.Error(), "Strategy(9)") {
					t.Fatalf("json.Marshal(%v) = %s, %v; want an error naming it", tt.in, got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("json.Marshal(%v) = %s, want %s", tt.in, got, tt.want)
			}
			var back Strategy = 7
			if err := json.Unmarshal(got, &back); err != nil || back != tt.in {
				t.Errorf("json.Unmarshal(%s) = %v, %v; want %v", got, back, err, tt.in)
			}
		})
	}
}

func TestStrategyUnmarshalJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Strategy
		wantErr bool
	}{
		{name: "empty string is Lowest", in: `""`, want: Lowest},
		{name: "Sequential", in: `"Sequential"`, want: Sequential},
		{name: "wrong case", in: `"sequential"`, wantErr: true},
		{name: "number", in: `1`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Strategy = 7
			err := json.Unmarshal([]byte(tt.in), &got)
			if (err != nil) != tt.wantErr {
				t.Fatalf("json.Unmarshal(%s) error = %v, want error %t", tt.in, err, tt.wantErr)
			}
			if !tt.wantErr && got != tt.want {
				t.Errorf("json.Unmarshal(%s) = %v, want %v", tt.in, got, tt.want)
			}
			if tt.wantErr && got != 7 {
				t.Errorf("json.Unmarshal(%s) changed the value to %v on error", tt.in, got)
			}
		})
	}
}

func TestParseCount(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantU64   uint64 // Uint64 of the result
		wantExact bool
		wantErr   string // part of the error; "" for success
	}{
		{name: "zero", in: "0", wantU64: 0, wantExact: true},
		{name: "one", in: "1", wantU64: 1, wantExact: true},
		{name: "a /24", in: "254", wantU64: 254, wantExact: true},
		{name: "2^64-1", in: "18446744073709551615", wantU64: 1<<64 - 1, wantExact: true},
		{name: "2^64", in: count2to64, wantU64: 1<<64 - 1},
		{name: "2^128-1", in: count2to128m1, wantU64: 1<<64 - 1},
		{name: "2^128 overflows", in: count2to128, wantErr: "more than 2^128-1"},
		{name: "10^39 overflows", in: "1" + strings.Repeat("0", 39), wantErr: "more than 2^128-1"},
		{name: "far too long", in: strings.Repeat("9", 100), wantErr: "more than 2^128-1"},
		{name: "empty", in: "", wantErr: "empty string"},
		{name: "leading zero", in: "0254", wantErr: "leading zero"},
		{name: "two zeros", in: "00", wantErr: "leading zero"},
		{name: "plus sign", in: "+1", wantErr: `unexpected '+' at offset 0`},
		{name: "minus sign", in: "-1", wantErr: `unexpected '-' at offset 0`},
		{name: "minus zero", in: "-0", wantErr: `unexpected '-' at offset 0`},
		{name: "leading space", in: " 1", wantErr: "unexpected ' ' at offset 0"},
		{name: "trailing space", in: "1 ", wantErr: "unexpected ' ' at offset 1"},
		{name: "hex", in: "0x10", wantErr: "leading zero"},
		{name: "underscore", in: "1_000", wantErr: "unexpected '_' at offset 1"},
		{name: "exponent", in: "1e3", wantErr: "unexpected 'e' at offset 1"},
		{name: "non-ASCII digit", in: "١", wantErr: "at offset 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseCount(tt.in)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("ParseCount(%q) = %v, want an error", tt.in, got)
				}
				if !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), `ipam: ParseCount("`) {
					t.Errorf("ParseCount(%q) error %q, want it to say %q", tt.in, err, tt.wantErr)
				}
				if got != (Count{}) {
					t.Errorf("ParseCount(%q) = %v with its error, want 0", tt.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseCount(%q) error: %v", tt.in, err)
			}
			if s := got.String(); s != tt.in {
				t.Errorf("ParseCount(%q).String() = %q", tt.in, s)
			}
			if v, exact := got.Uint64(); v != tt.wantU64 || exact != tt.wantExact {
				t.Errorf("ParseCount(%q).Uint64() = %d, %t; want %d, %t", tt.in, v, exact, tt.wantU64, tt.wantExact)
			}
		})
	}
}

func TestCountJSON(t *testing.T) {
	for _, s := range []string{"0", "254", count2to64, count2to128m1} {
		t.Run(s, func(t *testing.T) {
			c, err := ParseCount(s)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			if want := `"` + s + `"`; string(got) != want {
				t.Errorf("json.Marshal(%v) = %s, want %s", c, got, want)
			}
			var back Count
			if err := json.Unmarshal(got, &back); err != nil || back != c {
				t.Errorf("json.Unmarshal(%s) = %v, %v; want %v", got, back, err, c)
			}
		})
	}
	for _, tt := range []struct{ name, in string }{
		{"JSON number", `254`},
		{"overflow", `"` + count2to128 + `"`},
		{"leading zero", `"01"`},
		{"sign", `"-1"`},
		{"empty string", `""`},
		{"object", `{}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var c Count
			if err := json.Unmarshal([]byte(tt.in), &c); err == nil {
				t.Errorf("json.Unmarshal(%s) = %v, want an error", tt.in, c)
			}
		})
	}
}

// statsPool is the pool of the Stats doc comment: a /24 with ten addresses
// excluded, one reserved and three allocated.
func statsPool(t *testing.T) *Pool {
	t.Helper()
	p := mustNew(t, Spec{
		Prefix:   mpp("10.0.0.0/24"),
		Exclude:  []netipx.IPRange{rng("10.0.0.50", "10.0.0.59")},
		Reserved: []netip.Addr{mpa("10.0.0.1")},
	})
	for _, owner := range []string{"a", "b", "c"} {
		if _, err := p.Allocate(owner); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func TestStatsJSON(t *testing.T) {
	tests := []struct {
		name       string
		pool       func(t *testing.T) *Pool
		wantJSON   string
		wantString string
	}{
		{
			name:       "IPv4 /24",
			pool:       statsPool,
			wantJSON:   `{"size":"254","allocated":"3","excluded":"10","reserved":"1","free":"240"}`,
			wantString: "size 254, allocated 3, excluded 10, reserved 1, free 240",
		},
		{
			name:       "IPv6 ::/0",
			pool:       func(t *testing.T) *Pool { return mustNew(t, Spec{Prefix: mpp("::/0")}) },
			wantJSON:   `{"size":"` + countIPv6Usable + `","allocated":"0","excluded":"0","reserved":"0","free":"` + countIPv6Usable + `"}`,
			wantString: "size " + countIPv6Usable + ", allocated 0, excluded 0, reserved 0, free " + countIPv6Usable,
		},
		{
			name:       "zero Stats",
			pool:       func(*testing.T) *Pool { return nil },
			wantJSON:   `{"size":"0","allocated":"0","excluded":"0","reserved":"0","free":"0"}`,
			wantString: "size 0, allocated 0, excluded 0, reserved 0, free 0",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := tt.pool(t).Stats()
			got, err := json.Marshal(st)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantJSON, string(got)); diff != "" {
				t.Errorf("json.Marshal(Stats) (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantString, st.String()); diff != "" {
				t.Errorf("Stats.String() (-want +got):\n%s", diff)
			}
			var back Stats
			if err := json.Unmarshal(got, &back); err != nil || back != st {
				t.Errorf("json.Unmarshal(%s) = %v, %v; want %v", got, back, err, st)
			}
		})
	}
}

func TestSpecJSON(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		want string
	}{
		{
			name: "every field",
			spec: Spec{
				Prefix: mpp("10.20.0.0/24"), Start: mpa("10.20.0.10"), End: mpa("10.20.0.200"),
				Exclude:  []netipx.IPRange{rng("10.20.0.50", "10.20.0.59"), rng("10.20.0.77", "10.20.0.77"), rng("10.20.0.128", "10.20.0.143")},
				Reserved: []netip.Addr{mpa("10.20.0.2"), mpa("10.20.0.1")},
				Strategy: Sequential, Owners: MACOwners,
			},
			want: `{"cidr":"10.20.0.0/24","start":"10.20.0.10","end":"10.20.0.200",` +
				`"exclude":["10.20.0.50-10.20.0.59","10.20.0.77","10.20.0.128/28"],` +
				`"reserved":["10.20.0.2","10.20.0.1"],"strategy":"Sequential","owners":"MAC"}`,
		},
		{name: "CIDR only", spec: Spec{Prefix: mpp("fd00:1::/64")}, want: `{"cidr":"fd00:1::/64"}`},
		{name: "empty lists are omitted", spec: Spec{Prefix: mpp("10.0.0.0/29"), Exclude: []netipx.IPRange{}, Reserved: []netip.Addr{}}, want: `{"cidr":"10.0.0.0/29"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("json.Marshal(Spec) (-want +got):\n%s", diff)
			}
			var back Spec
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatalf("json.Unmarshal(%s) error: %v", got, err)
			}
			if diff := cmp.Diff(tt.spec, back, cmpSpecs); diff != "" {
				t.Errorf("json.Unmarshal(json.Marshal(Spec)) (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSpecJSONErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		spec Spec
	}{
		{"zero Spec", Spec{}},
		{"non-canonical prefix", Spec{Prefix: mpp("10.0.0.1/24")}},
		{"start after end", Spec{Prefix: mpp("10.0.0.0/24"), Start: mpa("10.0.0.9"), End: mpa("10.0.0.2")}},
		{"unknown strategy", Spec{Prefix: mpp("10.0.0.0/24"), Strategy: 3}},
		{"unknown owner kind", Spec{Prefix: mpp("10.0.0.0/24"), Owners: 3}},
		{"mapped reserved", Spec{Prefix: mpp("::/0"), Reserved: []netip.Addr{mpa("::ffff:10.0.0.1")}}},
	} {
		t.Run("marshal "+tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.spec)
			if !errors.Is(err, ErrInvalidSpec) {
				t.Errorf("json.Marshal(%s) = %s, %v; want an error wrapping ErrInvalidSpec", tt.name, got, err)
			}
		})
	}
	for _, tt := range []struct {
		name, in string
		addrErr  bool
	}{
		{"no cidr", `{}`, false},
		{"null", `null`, false},
		{"host bits set", `{"cidr":"10.0.0.5/24"}`, true},
		{"mapped start", `{"cidr":"::/0","start":"::ffff:10.0.0.1"}`, true},
		{"zoned reserved", `{"cidr":"fe80::/64","reserved":["fe80::1%eth0"]}`, true},
		{"start after end", `{"cidr":"10.0.0.0/24","start":"10.0.0.9","end":"10.0.0.2"}`, false},
		{"lower-case strategy", `{"cidr":"10.0.0.0/24","strategy":"sequential"}`, false},
	} {
		t.Run("unmarshal "+tt.name, func(t *testing.T) {
			var s Spec
			err := json.Unmarshal([]byte(tt.in), &s)
			if !errors.Is(err, ErrInvalidSpec) {
				t.Fatalf("json.Unmarshal(%s) = %v, want an error wrapping ErrInvalidSpec", tt.in, err)
			}
			if got := errors.Is(err, ErrInvalidAddr); got != tt.addrErr {
				t.Errorf("errors.Is(%v, ErrInvalidAddr) = %t, want %t", err, got, tt.addrErr)
			}
		})
	}
	t.Run("unmarshal wrong JSON type", func(t *testing.T) {
		var s Spec
		if err := json.Unmarshal([]byte(`{"cidr":10}`), &s); err == nil {
			t.Errorf("json.Unmarshal of a number CIDR succeeded: %+v", s)
		}
	})
}

func TestAllocationJSON(t *testing.T) {
	tests := []struct {
		name  string
		alloc Allocation
		want  string
	}{
		{"IPv4", Allocation{mpa("10.0.0.5"), "52:54:00:aa:bb:cc"}, `{"addr":"10.0.0.5","owner":"52:54:00:aa:bb:cc"}`},
		{"IPv6", Allocation{mpa("2001:db8::5"), "vm-1"}, `{"addr":"2001:db8::5","owner":"vm-1"}`},
		{"zero Addr", Allocation{netip.Addr{}, "vm-1"}, `{"addr":"","owner":"vm-1"}`},
		{"HTML and non-ASCII owner", Allocation{mpa("10.0.0.5"), "<vm&ü>"}, `{"addr":"10.0.0.5","owner":"\u003cvm\u0026ü\u003e"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.alloc)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("json.Marshal(Allocation) (-want +got):\n%s", diff)
			}
			var back Allocation
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.alloc, back, cmpAddrs); diff != "" {
				t.Errorf("json.Unmarshal(json.Marshal(Allocation)) (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAllocationJSONErrors(t *testing.T) {
	t.Run("marshal owner not valid UTF-8", func(t *testing.T) {
		got, err := json.Marshal(Allocation{mpa("10.0.0.5"), "vm-\xff"})
		if !errors.Is(err, ErrInvalidOwner) {
			t.Errorf("json.Marshal = %s, %v; want an error wrapping ErrInvalidOwner", got, err)
		}
	})
	for _, tt := range []struct{ name, in string }{
		{"mapped address", `{"addr":"::ffff:10.0.0.5","owner":"a"}`},
		{"zone", `{"addr":"fe80::1%eth0","owner":"a"}`},
		{"not an address", `{"addr":"10.0.0.256","owner":"a"}`},
		{"prefix", `{"addr":"10.0.0.0/24","owner":"a"}`},
	} {
		t.Run("unmarshal "+tt.name, func(t *testing.T) {
			var a Allocation
			err := json.Unmarshal([]byte(tt.in), &a)
			if !errors.Is(err, ErrInvalidAddr) {
				t.Errorf("json.Unmarshal(%s) = %v, want an error wrapping ErrInvalidAddr", tt.in, err)
			}
		})
	}
}

// jsonSnapPool is a small pool with two allocations, allocated out of
// address order.
func jsonSnapPool(t *testing.T) *Pool {
	t.Helper()
	p := mustNew(t, smallSpec())
	for _, a := range []struct{ addr, owner string }{{"10.0.0.5", "vm-a"}, {"10.0.0.2", "vm-b"}} {
		if err := p.AllocateAddr(mpa(a.addr), a.owner); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func TestSnapshotJSON(t *testing.T) {
	const small = `{"spec":{"cidr":"10.0.0.0/29","exclude":["10.0.0.3-10.0.0.4"],"reserved":["10.0.0.1"]},` +
		`"allocations":[{"addr":"10.0.0.2","owner":"vm-b"},{"addr":"10.0.0.5","owner":"vm-a"}]}`
	unsorted := Snapshot{Spec: smallSpec(), Allocations: []Allocation{
		{mpa("10.0.0.6"), "vm-c"}, {mpa("10.0.0.5"), "vm-b"}, {mpa("10.0.0.2"), "vm-z"}, {mpa("10.0.0.5"), "vm-a"},
	}}
	tests := []struct {
		name string
		snap func(t *testing.T) Snapshot
		want string
	}{
		{"small pool", func(t *testing.T) Snapshot { return jsonSnapPool(t).Snapshot() }, small},
		{
			"allocations sorted by address, then owner",
			func(*testing.T) Snapshot { return unsorted },
			`{"spec":{"cidr":"10.0.0.0/29","exclude":["10.0.0.3-10.0.0.4"],"reserved":["10.0.0.1"]},` +
				`"allocations":[{"addr":"10.0.0.2","owner":"vm-z"},{"addr":"10.0.0.5","owner":"vm-a"},` +
				`{"addr":"10.0.0.5","owner":"vm-b"},{"addr":"10.0.0.6","owner":"vm-c"}]}`,
		},
		{
			"no allocations is an empty list",
			func(t *testing.T) Snapshot {
				return Snapshot{Spec: Spec{Prefix: mpp("2001:db8::/64"), Strategy: Sequential, Owners: MACOwners}}
			},
			`{"spec":{"cidr":"2001:db8::/64","strategy":"Sequential","owners":"MAC"},"allocations":[]}`,
		},
		{
			"MAC pool",
			func(t *testing.T) Snapshot {
				p := mustNew(t, Spec{Prefix: mpp("10.0.0.0/30"), Owners: MACOwners})
				p.Allocate("52-54-00-AA-BB-CC")
				return p.Snapshot()
			},
			`{"spec":{"cidr":"10.0.0.0/30","owners":"MAC"},"allocations":[{"addr":"10.0.0.1","owner":"52:54:00:aa:bb:cc"}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := tt.snap(t)
			before := slices.Clone(snap.Allocations)
			got, err := json.Marshal(snap)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("json.Marshal(Snapshot) (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, snap.Allocations, cmpAddrs); diff != "" {
				t.Errorf("json.Marshal reordered the Snapshot's allocations (-before +after):\n%s", diff)
			}
			var back Snapshot
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatal(err)
			}
			want := Snapshot{Spec: snap.Spec, Allocations: slices.Clone(snap.Allocations)}
			slices.SortStableFunc(want.Allocations, cmpAlloc)
			if diff := cmp.Diff(want, back, cmpSpecs); diff != "" {
				t.Errorf("json.Unmarshal(json.Marshal(Snapshot)) (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSnapshotJSONAnyOrder: a snapshot marshals to the same bytes whatever
// the order of its allocations.
func TestSnapshotJSONAnyOrder(t *testing.T) {
	snap := jsonSnapPool(t).Snapshot()
	want, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	reversed := Snapshot{Spec: snap.Spec, Allocations: slices.Clone(snap.Allocations)}
	slices.Reverse(reversed.Allocations)
	got, err := json.Marshal(reversed)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("json.Marshal of reversed allocations (-sorted +reversed):\n%s", diff)
	}
}

// TestSnapshotJSONRestores: a pool restored from its JSON snapshot is the
// pool: same allocations, same Stats, same next address.
func TestSnapshotJSONRestores(t *testing.T) {
	p := jsonSnapPool(t)
	b, err := json.Marshal(p.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	var snap Snapshot
	if err := json.Unmarshal(b, &snap); err != nil {
		t.Fatal(err)
	}
	q, problems, err := Restore(snap)
	if err != nil || len(problems) != 0 {
		t.Fatalf("Restore = %v, %v", problems, err)
	}
	if diff := diffSnap(p.Snapshot(), q.Snapshot()); diff != "" {
		t.Errorf("restored snapshot (-want +got):\n%s", diff)
	}
	if q.Stats() != p.Stats() {
		t.Errorf("restored Stats = %v, want %v", q.Stats(), p.Stats())
	}
	a, _ := p.Allocate("vm-new")
	b2, _ := q.Allocate("vm-new")
	if a != b2 {
		t.Errorf("next address: restored %v, original %v", b2, a)
	}
}

func TestSnapshotJSONErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		snap Snapshot
		want error
	}{
		{"owner not valid UTF-8", Snapshot{Spec: smallSpec(), Allocations: []Allocation{{mpa("10.0.0.2"), "vm-\xff"}}}, ErrInvalidOwner},
		{"invalid spec", Snapshot{Spec: Spec{Prefix: mpp("10.0.0.1/24")}}, ErrInvalidSpec},
		{"zero Snapshot", Snapshot{}, ErrInvalidSpec},
	} {
		t.Run("marshal "+tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.snap)
			if !errors.Is(err, tt.want) {
				t.Errorf("json.Marshal = %s, %v; want an error wrapping %v", got, err, tt.want)
			}
		})
	}
	for _, tt := range []struct {
		name, in string
		want     error
	}{
		{"mapped allocation address", `{"spec":{"cidr":"10.0.0.0/29"},"allocations":[{"addr":"::ffff:10.0.0.2","owner":"a"}]}`, ErrInvalidAddr},
		{"mapped reserved address", `{"spec":{"cidr":"::/0","reserved":["::ffff:10.0.0.1"]},"allocations":[]}`, ErrInvalidAddr},
		{"invalid spec", `{"spec":{"cidr":"10.0.0.1/24"},"allocations":[]}`, ErrInvalidSpec},
		{"missing spec", `{"allocations":[]}`, nil},
	} {
		t.Run("unmarshal "+tt.name, func(t *testing.T) {
			var s Snapshot
			err := json.Unmarshal([]byte(tt.in), &s)
			if err == nil {
				// A missing spec leaves the zero Spec, which Restore refuses.
				if tt.want != nil {
					t.Fatalf("json.Unmarshal(%s) = %+v, want an error wrapping %v", tt.in, s, tt.want)
				}
				if _, _, err := Restore(s); !errors.Is(err, ErrInvalidSpec) {
					t.Errorf("Restore(json.Unmarshal(%s)) error = %v, want ErrInvalidSpec", tt.in, err)
				}
				return
			}
			if tt.want == nil || !errors.Is(err, tt.want) {
				t.Errorf("json.Unmarshal(%s) = %v, want an error wrapping %v", tt.in, err, tt.want)
			}
		})
	}
}

// TestSnapshotJSONKeysLowerCase: every key of the JSON form is lower case.
func TestSnapshotJSONKeysLowerCase(t *testing.T) {
	snap := Snapshot{
		Spec: Spec{
			Prefix: mpp("10.20.0.0/24"), Start: mpa("10.20.0.10"), End: mpa("10.20.0.200"),
			Exclude: []netipx.IPRange{rng("10.20.0.50", "10.20.0.59")}, Reserved: []netip.Addr{mpa("10.20.0.1")},
			Strategy: Sequential, Owners: MACOwners,
		},
		Allocations: []Allocation{{mpa("10.20.0.11"), "52:54:00:aa:bb:cc"}},
	}
	b, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	var generic map[string]any
	if err := json.Unmarshal(b, &generic); err != nil {
		t.Fatal(err)
	}
	var keys []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				keys = append(keys, k)
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(generic)
	slices.Sort(keys)
	want := []string{"addr", "allocations", "cidr", "end", "exclude", "owner", "owners", "reserved", "spec", "start", "strategy"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("JSON keys (-want +got):\n%s", diff)
	}
}
