package netnstest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// dhcpcdPrivate returns the arguments that run the shell command line cmd
// (a dhcpcd) with its own state in dir: inside the mount namespace ip netns
// exec makes, dir/lib and dir/run are bound over /var/lib/dhcpcd and
// /run/dhcpcd, so the machine's stay as they are and no lease of another
// test is read. The mount points are made first: a fresh machine has no
// /run/dhcpcd until dhcpcd has run once.
func dhcpcdPrivate(t testing.TB, dir, cmd string) []string {
	for _, d := range []string{"lib", "run"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return []string{"sh", "-c", fmt.Sprintf("mkdir -p /var/lib/dhcpcd /run/dhcpcd && mount --bind %s /var/lib/dhcpcd && mount --bind %s /run/dhcpcd && exec %s",
		filepath.Join(dir, "lib"), filepath.Join(dir, "run"), cmd)}
}
