package v1alpha1

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vmnetkit/vmnetkit/ipam"
)

// AddressAnnotation on an IPAddressClaim asks for one address of the
// claim's pool (an IPAddressClaim's spec has no field for it): the claim
// gets that address or none, and its Ready condition says why not. It is
// read only while the claim has no IPAddress. (The same key is the label
// that holds an IPAddress's address in label form.)
const AddressAnnotation = "ipam.vmnetkit.dev/address"

// PreAllocatedAddress is an IPv4 or IPv6 address of spec.preAllocations,
// without a prefix length. (The CRD checks its characters and length,
// ParsePreAllocations the rest.)
// +kubebuilder:validation:MinLength=2
// +kubebuilder:validation:MaxLength=45
// +kubebuilder:validation:Pattern=`^[0-9A-Fa-f:.]+$`
type PreAllocatedAddress string

// AddressError says why a pool never hands out an address (CheckAddress).
// +kubebuilder:object:generate=false
type AddressError struct {
	Addr netip.Addr
	// Listed says Addr is in spec.addresses: it is excluded, the gateway
	// or one of the subnet's reserved addresses. Otherwise it is not in
	// the pool at all.
	Listed bool
	// Why is the rest of the message, naming the field: "is not in
	// spec.addresses", "is spec.gateway", ...
	Why string
}

func (e *AddressError) Error() string { return e.Addr.String() + " " + e.Why }

// CheckAddress reports whether a pool of s hands out a: nil, an
// *AddressError naming the field that says no, or the error of s's
// addresses when they do not parse (ipam.AddressList.Parse).
func (s PoolSpec) CheckAddress(a netip.Addr) error {
	check, err := s.checker()
	if err != nil {
		return err
	}
	if err := check(a); err != nil {
		return err
	}
	return nil
}

// checker returns CheckAddress for s's addresses parsed once.
func (s PoolSpec) checker() (func(netip.Addr) *AddressError, error) {
	spec, err := s.AddressList().Parse()
	if err != nil {
		return nil, err
	}
	p, err := ipam.New(spec)
	if err != nil {
		return nil, err
	}
	return func(a netip.Addr) *AddressError {
		if p.Check(a) == nil {
			return nil
		}
		return s.whyNot(a)
	}, nil
}

// whyNot says why a, which a pool of s does not hand out, is left out:
// ipam.AddressList.Parse hands out what spec.addresses lists less the
// excluded addresses, the gateway and the subnet's reserved ones.
func (s PoolSpec) whyNot(a netip.Addr) *AddressError {
	in := func(texts []string) int {
		for i, t := range texts {
			if r, err := ipam.ParseRange(t); err == nil && r.Contains(a) {
				return i
			}
		}
		return -1
	}
	if in(s.Addresses) < 0 {
		return &AddressError{Addr: a, Why: "is not in spec.addresses"}
	}
	if g, err := ipam.ParseAddr(s.Gateway); err == nil && g == a {
		return &AddressError{Addr: a, Listed: true, Why: "is spec.gateway"}
	}
	if i := in(s.ExcludedAddresses); i >= 0 {
		return &AddressError{Addr: a, Listed: true, Why: fmt.Sprintf("is in spec.excludedAddresses[%d] (%s)", i, s.ExcludedAddresses[i])}
	}
	subnet := netip.PrefixFrom(a, s.Prefix).Masked()
	what := "broadcast"
	switch {
	case a == subnet.Addr() && a.Is4():
		what = "network"
	case a == subnet.Addr():
		what = "subnet-router anycast"
	}
	return &AddressError{Addr: a, Listed: true,
		Why: fmt.Sprintf("is the %s address of %s, handed out only with spec.allocateReservedIPAddresses", what, subnet)}
}

// ParsePreAllocations returns the address spec.preAllocations gives each
// claim, for a pool of namespace (a VMNetIPPool's; "" for a
// GlobalVMNetIPPool), and one field error per invalid entry, in key
// order: a key that is not a claim's name (VMNetIPPool) or namespace/name
// (GlobalVMNetIPPool), an address that does not parse or that the pool
// does not hand out (CheckAddress; not checked while spec.addresses does
// not parse), an address of two keys (reported on the second). The map
// holds the valid entries.
func (s PoolSpec) ParsePreAllocations(namespace string) (map[types.NamespacedName]netip.Addr, field.ErrorList) {
	if len(s.PreAllocations) == 0 {
		return nil, nil
	}
	check, _ := s.checker()
	path := field.NewPath("spec", "preAllocations")
	out := make(map[types.NamespacedName]netip.Addr, len(s.PreAllocations))
	first := make(map[netip.Addr]string, len(s.PreAllocations))
	var errs field.ErrorList
	for _, k := range slices.Sorted(maps.Keys(s.PreAllocations)) {
		p, text := path.Key(k), string(s.PreAllocations[k])
		claim, keyErr := preAllocationClaim(k, namespace)
		if keyErr != "" {
			errs = append(errs, field.Invalid(p, k, keyErr))
		}
		a, err := ipam.ParseAddr(text)
		if err == nil && check != nil {
			if e := check(a); e != nil {
				err = e
			}
		}
		switch {
		case err != nil:
			errs = append(errs, field.Invalid(p, text, err.Error()))
			continue
		case first[a] != "":
			errs = append(errs, field.Invalid(p, text, fmt.Sprintf("%s is pre-allocated to %s too", a, first[a])))
			continue
		}
		first[a] = k
		if keyErr == "" {
			out[claim] = a
		}
	}
	return out, errs
}

// preAllocationClaim returns the claim a key of spec.preAllocations names
// in a pool of namespace ("" for a GlobalVMNetIPPool), or why it names
// none.
func preAllocationClaim(key, namespace string) (types.NamespacedName, string) {
	ns, name, hasNS := strings.Cut(key, "/")
	switch {
	case namespace != "" && hasNS:
		return types.NamespacedName{}, "a VMNetIPPool serves the claims of its own namespace: the key is a claim's name"
	case namespace == "" && !hasNS:
		return types.NamespacedName{}, "a GlobalVMNetIPPool's key is a claim's namespace/name"
	case namespace != "":
		ns, name = namespace, key
	}
	var msgs []string
	if namespace == "" {
		for _, m := range validation.IsDNS1123Label(ns) {
			msgs = append(msgs, "namespace: "+m)
		}
	}
	for _, m := range validation.IsDNS1123Subdomain(name) {
		msgs = append(msgs, "name: "+m)
	}
	if len(msgs) > 0 {
		return types.NamespacedName{}, strings.Join(msgs, "; ")
	}
	return types.NamespacedName{Namespace: ns, Name: name}, ""
}
