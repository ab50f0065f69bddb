package main

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/go-logr/logr"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/packetsocket"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/udpsocket"
)

// listen6 opens the DHCPv6 sockets: the packet socket on -iface for the
// multicasts, the unicast UDP socket on -listen6 for relays and replies,
// with the -rcvbuf receive buffer.
func listen6(c *config, log logr.Logger) (*udpsocket.Socket, *packetsocket.Socket, error) {
	if c.iface == "" {
		return nil, nil, errors.New("the pool has an IPv6 part, and DHCPv6 needs -iface: clients multicast to ff02::1:2 on a link, read with a packet socket")
	}
	mc, err := packetsocket.Listen(c.iface)
	if errors.Is(err, syscall.EPERM) {
		// No CAP_NET_RAW: a UDP socket in the group, without the frames'
		// MACs.
		log.Error(err, "DHCPv6 without a packet socket (it needs CAP_NET_RAW): clients are found by the MAC in their DUID or EUI-64 link-local address only, not by their frame's source MAC")
		conn6, err := udpsocket.ListenIPv6Group(c.iface, c.listen6)
		if err != nil {
			return nil, nil, err
		}
		if c.rcvbuf > 0 {
			if granted, err := udpsocket.SetReceiveBuffer(conn6, c.rcvbuf); err != nil {
				log.Error(err, "DHCPv6 socket receive buffer", "socket", "udp6", "asked", c.rcvbuf, "granted", granted)
			}
		}
		return conn6, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("DHCPv6 packet socket: %w", err)
	}
	conn6, err := udpsocket.ListenIPv6(c.iface, c.listen6)
	if err != nil {
		mc.Close()
		return nil, nil, err
	}
	// The packet socket's buffer is its receive ring (packetsocket's
	// blockSize x blockCount); -rcvbuf sizes the UDP socket's.
	if c.rcvbuf > 0 {
		if granted, err := udpsocket.SetReceiveBuffer(conn6, c.rcvbuf); err != nil {
			log.Error(err, "DHCPv6 socket receive buffer", "socket", "udp6", "asked", c.rcvbuf, "granted", granted)
		}
	}
	return conn6, mc, nil
}

// serverDUID is -duid, or the pool's DUID (poolDUID): of -ippool's
// namespace/name, or of the pool file's metadata.
func (c *config) serverDUID() ([]byte, error) {
	if c.duid != nil {
		return c.duid, nil
	}
	if c.ippool != "" {
		return poolDUID(c.namespace, c.name), nil
	}
	data, err := os.ReadFile(c.pool)
	if err != nil {
		return nil, err
	}
	p, err := poolsource.DecodePool(data)
	if err != nil {
		return nil, err
	}
	return poolDUID(p.Metadata.Namespace, p.Metadata.Name), nil
}
