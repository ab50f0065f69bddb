// Package macoracle is the reference the core's MAC parsing tests compare
// with: net.ParseMAC as Go 1.26 has it, whatever the toolchain. Only tests
// import it.
package macoracle

import (
	"encoding/hex"
	"net"
)

// ParseMAC is net.ParseMAC plus the spelling without separators
// (00005e005301, or 16 or 40 hex digits for the longer addresses) that Go
// 1.26 added and Go 1.23 to 1.25, which the module supports, refuse.
func ParseMAC(s string) (net.HardwareAddr, error) {
	hw, err := net.ParseMAC(s)
	if err == nil {
		return hw, nil
	}
	switch len(s) {
	case 2 * 6, 2 * 8, 2 * 20:
		// Two hex digits a byte, either case, as net.ParseMAC reads them.
		if b, hexErr := hex.DecodeString(s); hexErr == nil {
			return net.HardwareAddr(b), nil
		}
	}
	return nil, err
}
