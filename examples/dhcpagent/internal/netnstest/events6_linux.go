package netnstest

import (
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Events are the script calls so far, in order.
func (c *Client6) Events() []Event6 {
	files, _ := filepath.Glob(filepath.Join(c.dir, "ev.[0-9]*"))
	slices.Sort(files)
	var evs []Event6
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			c.t.Fatal(err)
		}
		env := map[string]string{}
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				env[k] = strings.Trim(v, `"'`)
			}
		}
		evs = append(evs, c.event(env))
	}
	return evs
}

func (c *Client6) event(env map[string]string) Event6 {
	e := Event6{Reason: env["reason"], Env: env}
	secs := func(k string) time.Duration {
		n, _ := strconv.ParseInt(env[k], 10, 64)
		return time.Duration(n) * time.Second
	}
	switch c.kind {
	case Dhclient:
		e.Addr, _ = netip.ParseAddr(env["new_ip6_address"])
		if !e.Addr.IsValid() {
			e.Addr, _ = netip.ParseAddr(env["old_ip6_address"])
		}
		e.Preferred, e.Valid = secs("new_preferred_life"), secs("new_max_life")
		e.DNS, e.Search = words(env["new_dhcp6_name_servers"]), words(env["new_dhcp6_domain_search"])
		e.ServerID, e.ClientID = dhclientHex(env["new_dhcp6_server_id"]), dhclientHex(env["new_dhcp6_client_id"])
		if e.Reason == "RELEASE6" || e.Reason == "EXPIRE6" || e.Reason == "STOP6" {
			e.ServerID, e.ClientID = dhclientHex(env["old_dhcp6_server_id"]), dhclientHex(env["old_dhcp6_client_id"])
		}
	case Dhcpcd:
		prefix := "new_"
		if env["new_dhcp6_ia_na1_ia_addr1"] == "" && env["old_dhcp6_ia_na1_ia_addr1"] != "" {
			prefix = "old_"
		}
		e.Addr, _ = netip.ParseAddr(env[prefix+"dhcp6_ia_na1_ia_addr1"])
		e.Preferred, e.Valid = secs(prefix+"dhcp6_ia_na1_ia_addr1_pltime"), secs(prefix+"dhcp6_ia_na1_ia_addr1_vltime")
		e.DNS, e.Search = words(env[prefix+"dhcp6_name_servers"]), words(env[prefix+"dhcp6_domain_search"])
		e.ServerID, e.ClientID = strings.ToLower(env[prefix+"dhcp6_server_id"]), strings.ToLower(env[prefix+"dhcp6_client_id"])
	}
	return e
}

func words(s string) string {
	f := strings.Fields(s)
	for i := range f {
		f[i] = strings.TrimSuffix(f[i], ".")
	}
	return strings.Join(f, " ")
}

// dhclientHex is dhclient's "0:1:a:..." as "00010a...".
func dhclientHex(s string) string {
	if s == "" {
		return ""
	}
	var b []byte
	for _, p := range strings.Split(s, ":") {
		v, err := strconv.ParseUint(p, 16, 8)
		if err != nil {
			return s
		}
		b = append(b, byte(v))
	}
	return hex.EncodeToString(b)
}

func colonHex(b []byte) string {
	s := make([]string, len(b))
	for i, x := range b {
		s[i] = fmt.Sprintf("%02x", x)
	}
	return strings.Join(s, ":")
}
