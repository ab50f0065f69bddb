package ipam

import (
	"encoding/binary"
	"errors"
	"net"
)

// naivePool is the allocator deployed controllers run today, kept here as a
// benchmark baseline: a map from address string to "in use" with one entry
// per address of the range. Allocate iterates the map and takes the first
// free entry (Go's map order: a random address); AllocateAddr iterates the
// map comparing each key with the wanted address, formatted anew with
// net.IP.String in the loop.
type naivePool struct {
	used map[string]bool
}

var errNaiveFull = errors.New("naive: pool exhausted")

// newNaivePool expands every address of [first, last] (IPv4) into the map.
func newNaivePool(first, last uint32) *naivePool {
	p := &naivePool{used: make(map[string]bool)}
	for v := first; ; v++ {
		p.used[naiveIP(v).String()] = false
		if v == last {
			break
		}
	}
	return p
}

func naiveIP(v uint32) net.IP {
	ip := make(net.IP, 4)
	binary.BigEndian.PutUint32(ip, v)
	return ip
}

func (p *naivePool) Allocate(owner string) (string, error) {
	for ip, used := range p.used {
		if !used {
			p.used[ip] = true
			return ip, nil
		}
	}
	return "", errNaiveFull
}

func (p *naivePool) AllocateAddr(ip net.IP, owner string) error {
	for k, used := range p.used {
		if k == ip.String() {
			if used {
				return ErrInUse
			}
			p.used[k] = true
			return nil
		}
	}
	return ErrOutOfRange
}
