package hwaddr

import (
	"encoding/hex"
	"net"
)

// stdParseMAC is the oracle the fuzz tests compare with: net.ParseMAC as Go
// 1.26 has it, whatever the toolchain. Go 1.26 added the spelling without
// separators (00005e005301, 16 or 40 hex digits for the longer addresses);
// Go 1.23 to 1.25, which the module supports (go.mod says go 1.23), refuse
// it. Otherwise it is net.ParseMAC itself.
func stdParseMAC(s string) (net.HardwareAddr, error) {
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
