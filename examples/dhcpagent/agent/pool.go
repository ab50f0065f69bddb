package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
	"go4.org/netipx"
)

// Pool is the IPPool object as the API server returns it (the operator's
// network.vmnetkit.dev/v1alpha1 IPPool, for example from
// kubectl get ippool lab -o json), trimmed to what the agent reads; other
// fields, such as spec.network, spec.strategy and status.conditions, are
// ignored. For example:
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
// spec.domainSearch is the agent's own addition (the operator's IPPool has
// no search list yet); the other fields are the operator's.
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

// PoolSpec is the desired pool. Addresses are strings so that a bad one is
// reported with its field name rather than as a JSON syntax error.
type PoolSpec struct {
	CIDR         string   `json:"cidr"`                   // required, canonical: 10.20.0.0/24
	RangeStart   string   `json:"rangeStart,omitempty"`   // first allocatable address
	RangeEnd     string   `json:"rangeEnd,omitempty"`     // last allocatable address
	Exclude      []string `json:"exclude,omitempty"`      // "a-b", "a" or "a/len"
	ServerIP     string   `json:"serverIP"`               // required: the DHCP server identifier
	Router       string   `json:"router,omitempty"`       // default gateway
	DNS          []string `json:"dns,omitempty"`          // name servers
	NTP          []string `json:"ntp,omitempty"`          // time servers
	Domain       string   `json:"domain,omitempty"`       // domain name option
	DomainSearch []string `json:"domainSearch,omitempty"` // domain search list option
	LeaseTime    Duration `json:"leaseTime,omitempty"`    // zero: DefaultLeaseTime
}

// PoolStatus is the pool's persisted allocation state.
type PoolStatus struct {
	Allocated map[string]string `json:"allocated,omitempty"`
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
	if dec.More() {
		return nil, fmt.Errorf("agent: decode pool: data after the object: %w", ErrInvalidPool)
	}
	return &p, nil
}

// Name is the pool's namespace/name, or its name alone.
func (p *Pool) Name() string {
	if p.Metadata.Namespace == "" {
		return p.Metadata.Name
	}
	return p.Metadata.Namespace + "/" + p.Metadata.Name
}

// Config converts the spec into the ipam.Spec and leasestore.Options the
// core builds the table from. The server identifier and the router are
// reserved in the ipam.Spec when they lie inside the pool's prefix, so the
// pool never hands them out.
//
// A spec that cannot describe the pool (cidr, rangeStart, rangeEnd,
// exclude, serverIP, or one ipam.Spec.Validate rejects) is an error: the
// errors.Join of one error per bad field, each naming the field, quoting the
// value and wrapping ErrInvalidPool. An option value that does not parse
// (router, dns, ntp) is left out and reported in problems instead, in field
// order, the way leasestore.Build drops and reports options it cannot
// serve: one bad name server must not stop the pool's DHCP.
func (p *Pool) Config() (spec ipam.Spec, opts leasestore.Options, problems []error, err error) {
	var errs []error
	s := p.Spec
	report := func(list *[]error, field, value string, err error) {
		*list = append(*list, fmt.Errorf("agent: pool %q: spec.%s %q: %v: %w", p.Name(), field, value, err, ErrInvalidPool))
	}
	addr := func(list *[]error, field, value string) netip.Addr {
		a, err := netip.ParseAddr(value)
		if err != nil {
			report(list, field, value, err)
			return netip.Addr{}
		}
		return a.Unmap()
	}
	addrs := func(field string, values []string) []netip.Addr {
		var out []netip.Addr
		for i, v := range values {
			if a := addr(&problems, fmt.Sprintf("%s[%d]", field, i), v); a.IsValid() {
				out = append(out, a)
			}
		}
		return out
	}

	if prefix, err := netip.ParsePrefix(s.CIDR); err != nil {
		report(&errs, "cidr", s.CIDR, err)
	} else if !prefix.Addr().Is4() {
		report(&errs, "cidr", s.CIDR, errors.New("not IPv4: this agent serves DHCPv4"))
	} else {
		spec.Prefix = prefix
	}
	if s.RangeStart != "" {
		spec.Start = addr(&errs, "rangeStart", s.RangeStart)
	}
	if s.RangeEnd != "" {
		spec.End = addr(&errs, "rangeEnd", s.RangeEnd)
	}
	for i, e := range s.Exclude {
		r, err := parseRange(e)
		if err != nil {
			report(&errs, fmt.Sprintf("exclude[%d]", i), e, err)
			continue
		}
		spec.Exclude = append(spec.Exclude, r)
	}
	if s.ServerIP == "" {
		report(&errs, "serverIP", "", errors.New("required: it is the DHCP server identifier"))
	} else {
		opts.ServerIP = addr(&errs, "serverIP", s.ServerIP)
		if opts.ServerIP.IsValid() && !opts.ServerIP.Is4() {
			report(&errs, "serverIP", s.ServerIP, errors.New("not IPv4: this agent serves DHCPv4"))
		}
	}
	if s.Router != "" {
		opts.Router = addr(&problems, "router", s.Router)
	}
	opts.DNS = addrs("dns", s.DNS)
	opts.NTP = addrs("ntp", s.NTP)
	opts.DomainName = s.Domain
	opts.DomainSearch = append([]string(nil), s.DomainSearch...)
	opts.LeaseTime = time.Duration(s.LeaseTime)

	for _, a := range []netip.Addr{opts.ServerIP, opts.Router} {
		if a.IsValid() && spec.Prefix.Contains(a) {
			spec.Reserved = append(spec.Reserved, a)
		}
	}
	if len(errs) == 0 {
		if err := spec.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("agent: pool %q: %v: %w", p.Name(), err, ErrInvalidPool))
		}
	}
	if len(errs) > 0 {
		return ipam.Spec{}, leasestore.Options{}, nil, errors.Join(errs...)
	}
	return spec, opts, problems, nil
}

// parseRange reads "a-b", a single address "a", or a prefix "a/len".
func parseRange(s string) (netipx.IPRange, error) {
	switch {
	case strings.Contains(s, "-"):
		return netipx.ParseIPRange(s)
	case strings.Contains(s, "/"):
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return netipx.IPRange{}, err
		}
		return netipx.RangeOfPrefix(p), nil
	default:
		a, err := netip.ParseAddr(s)
		if err != nil {
			return netipx.IPRange{}, err
		}
		return netipx.IPRangeFrom(a, a), nil
	}
}
