package poolsource

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// Pool is the IPPool object as the API server returns it (the operator's
// network.vmnetkit.dev/v1alpha1 IPPool, for example from
// kubectl get ippool lab -o json), trimmed to what the agent reads: its
// spec is the operator's v1alpha1.IPPoolSpec (spec.network and spec.paused
// are ignored), and of the status only status.allocated is read. For
// example:
//
//	{
//	  "apiVersion": "network.vmnetkit.dev/v1alpha1",
//	  "kind": "IPPool",
//	  "metadata": {"name": "lab", "namespace": "default", "resourceVersion": "42"},
//	  "spec": {
//	    "cidr": "10.20.0.0/24",
//	    "rangeStart": "10.20.0.10",
//	    "rangeEnd": "10.20.0.200",
//	    "exclude": ["10.20.0.50-10.20.0.59", "10.20.0.77"],
//	    "serverIP": "10.20.0.2",
//	    "router": "10.20.0.1",
//	    "dns": ["10.20.0.2"],
//	    "ntp": ["10.20.0.3"],
//	    "domain": "lab.example",
//	    "domainSearch": ["lab.example", "example"],
//	    "leaseTime": "1h"
//	  },
//	  "status": {
//	    "allocated": {
//	      "10.20.0.10": "52:54:00:aa:bb:01",
//	      "10.20.0.2": "RESERVED"
//	    }
//	  }
//	}
//
// status.allocated maps each address (in netip.Addr.String form) to the MAC
// that holds it, or to EXCLUDED or RESERVED, as ipam.ParseAllocated reads it.
//
// Every spec field is the operator's (v1alpha1.IPPoolSpec, embedded; this
// package already imports the operator's API types, and they import
// nothing of the agent, so there is no cycle). Pool is not the operator's
// v1alpha1.IPPool itself for two reasons: spec.leaseTime also reads as a
// number of seconds, which a hand-written pool file may hold and
// metav1.Duration refuses (see [PoolSpec]), and the rest of the object
// (conditions, the counts, managedFields) is not decoded per load.
type Pool struct {
	APIVersion string     `json:"apiVersion,omitempty"`
	Kind       string     `json:"kind,omitempty"`
	Metadata   ObjectMeta `json:"metadata"`
	Spec       PoolSpec   `json:"spec"`
	Status     PoolStatus `json:"status"`
}

// ObjectMeta is the part of Kubernetes object metadata the agent logs.
type ObjectMeta struct {
	Name            string `json:"name,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	Generation      int64  `json:"generation,omitempty"`
}

// PoolSpec is the desired pool: the operator's IPPoolSpec, whose SpecText
// is the one translation of an IPPool into an ipam.Spec that the operator
// uses too, with its lease time read more leniently. Addresses are
// strings so that a bad one is reported with its field name rather than
// as a JSON syntax error. The agent requires serverIP (the DHCP server
// identifier) and an IPv4 cidr; spec.ipv6 (the operator's IPPoolIPv6Spec)
// is the IPv6 part it serves by DHCPv6 (see Pool.Config6).
type PoolSpec struct {
	v1alpha1.IPPoolSpec

	// LeaseTime hides IPPoolSpec.LeaseTime: it reads whole seconds as well.
	LeaseTime Duration `json:"leaseTime,omitempty"` // zero: DefaultLeaseTime
}

// PoolStatus is the pool's persisted allocation state.
type PoolStatus struct {
	Allocated map[string]string `json:"allocated,omitempty"`
	// IPv6 is the allocation state of spec.ipv6 (status.ipv6.allocated,
	// the same form as Allocated); see Pool.Config6.
	IPv6 *FamilyStatus `json:"ipv6,omitempty"`
}

// Duration is a lease time that reads from JSON either as a Go duration
// string ("1h", "90m", the form of a Kubernetes metav1.Duration) or as a
// number of seconds (3600). It writes as a duration string.
type Duration time.Duration

// UnmarshalJSON implements json.Unmarshaler.
func (d *Duration) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("leaseTime %q: %w", s, err)
		}
		*d = Duration(v)
		return nil
	}
	if string(b) == "null" {
		return nil
	}
	secs, err := strconv.ParseUint(string(b), 10, 32)
	if err != nil {
		return fmt.Errorf("leaseTime %s: want a duration string or whole seconds up to 2^32-1", b)
	}
	*d = Duration(time.Duration(secs) * time.Second)
	return nil
}

// MarshalJSON implements json.Marshaler.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// ErrInvalidPool is wrapped by every error of DecodePool and Pool.Config,
// and by the problems Pool.Config reports.
var ErrInvalidPool = errors.New("invalid pool")

// DecodePool parses data as a Pool. Unknown fields are ignored (the API
// server adds many); trailing data after the object is an error. The error
// wraps ErrInvalidPool.
func DecodePool(data []byte) (*Pool, error) {
	var p Pool
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("agent: decode pool: %v: %w", err, ErrInvalidPool)
	}
	// Only JSON whitespace may follow the object. dec.More is not enough:
	// it reports false at a closing ']' or '}' as well as at the end.
	if rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, fmt.Errorf("agent: decode pool: data after the object: %w", ErrInvalidPool)
	}
	return &p, nil
}

// Deliver decodes data as a Pool and delivers it to apply. A pool
// that does not decode is logged (the line the agent logged when it
// decoded pools itself) and not delivered.
func Deliver(data []byte, apply Apply, log logr.Logger) error {
	p, err := DecodePool(data)
	if err != nil {
		log.Error(err, "pool rejected, table unchanged")
		return err
	}
	return apply(p)
}

// Name is the pool's namespace/name, or its name alone.
func (p *Pool) Name() string {
	if p.Metadata.Namespace == "" {
		return p.Metadata.Name
	}
	return p.Metadata.Namespace + "/" + p.Metadata.Name
}

// Config converts the spec into the ipam.Spec and leasestore.Options the
// core builds the table from. The ipam.Spec is the one the operator builds
// too: IPPoolSpec.ParseSpec, ipam.SpecText.Parse of the spec's SpecText, which reserves the
// server identifier and the router when they lie inside cidr, so the pool
// never hands them out.
//
// A spec that cannot describe the pool is an error wrapping ErrInvalidPool:
// the errors.Join of ParseSpec's error (which names each bad field as the
// IPPool does: rangeStart, serverIP, exclude[2]) and
// the agent's own: cidr and serverIP must be IPv4, serverIP is required.
// An option value that does not parse (dns, ntp) is left out and reported
// in problems instead, in field order, the way leasestore.Build drops and
// reports options it cannot serve: one bad name server must not stop the
// pool's DHCP. Addresses follow ipam's text rule (see ipam.ParseAddr): an
// IPv4-mapped IPv6 address is refused with the address to write instead.
func (p *Pool) Config() (spec ipam.Spec, opts leasestore.Options, problems []error, err error) {
	var errs []error
	s := p.Spec
	report := func(field, value string, err error) {
		errs = append(errs, fmt.Errorf("agent: pool %q: spec.%s %q: %v: %w", p.Name(), field, value, err, ErrInvalidPool))
	}
	addr := func(field, value string) netip.Addr {
		a, err := ipam.ParseAddr(value)
		if err != nil {
			problems = append(problems, fmt.Errorf("agent: pool %q: spec.%s: %w: %w", p.Name(), field, err, ErrInvalidPool))
		}
		return a
	}
	addrs := func(field string, values []string) []netip.Addr {
		var out []netip.Addr
		for i, v := range values {
			if a := addr(fmt.Sprintf("%s[%d]", field, i), v); a.IsValid() {
				out = append(out, a)
			}
		}
		return out
	}

	spec, err = s.ParseSpec()
	if err != nil {
		errs = append(errs, fmt.Errorf("agent: pool %q: %w: %w", p.Name(), err, ErrInvalidPool))
	}
	if r, err := ipam.ParseRange(s.CIDR); err == nil && !r.From().Is4() {
		report("cidr", s.CIDR, errors.New("not IPv4: this agent serves DHCPv4"))
	}
	// A serverIP that does not parse is in ParseSpec's error (serverIP).
	switch a, err := ipam.ParseAddr(s.ServerIP); {
	case s.ServerIP == "":
		report("serverIP", "", errors.New("required: it is the DHCP server identifier"))
	case err == nil && !a.Is4():
		report("serverIP", s.ServerIP, errors.New("not IPv4: this agent serves DHCPv4"))
	}
	if len(errs) > 0 {
		return ipam.Spec{}, leasestore.Options{}, nil, errors.Join(errs...)
	}

	opts.ServerIP = addr("serverIP", s.ServerIP)
	if s.Router != "" {
		opts.Router = addr("router", s.Router)
	}
	opts.DNS = addrs("dns", s.DNS)
	opts.NTP = addrs("ntp", s.NTP)
	opts.DomainName = s.Domain
	opts.DomainSearch = append([]string(nil), s.DomainSearch...)
	opts.LeaseTime = time.Duration(s.LeaseTime)
	return spec, opts, problems, nil
}
