package e2e

import (
	"context"
	"fmt"
	"net/netip"
	"path/filepath"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The lab: one dual-stack IPPool on the segment. Its leases are short
// (8 s: T1 4 s, T2 7 s; DHCPv6 preferred 8 s: T1 4 s), so that every
// client renews several times in each fault case. 10.88.0.3-10.88.0.9
// are excluded: the two-agent setup gives its agents addresses there.
const (
	poolNS, poolName = "default", "lab"
	serverIP         = "10.88.0.2"
	serverIP6        = "fd00:88::2"
	leaseTime        = 8 * time.Second
	apiPort          = "127.0.0.1:6443" // where an agent's namespace reaches the API server
)

var scheme = kubetest.NewScheme(v1alpha1.AddToScheme)

// system is the whole chain the test runs: the control plane, the
// operator, the segment with its agents and clients, and the timeline of
// what ran when.
type system struct {
	t         *testing.T
	cp        *controlPlane
	c         client.Client // admin
	seg       *segment
	operator  *operatorProc
	agents    []*agentProc
	clients   []*vmClient
	binOp     string
	binAgent  string
	opConfig  string // the operator's kubeconfig
	agentCfg  *rest.Config
	cases     []caseCounts
	created   int // burst configs created so far
	agentArgs []string
}

// newPool is the lab's IPPool.
func newPool() *v1alpha1.IPPool {
	lease := metav1.Duration{Duration: leaseTime}
	return &v1alpha1.IPPool{
		ObjectMeta: metav1.ObjectMeta{Namespace: poolNS, Name: poolName},
		Spec: v1alpha1.IPPoolSpec{
			Network: "lab", CIDR: "10.88.0.0/24", RangeStart: "10.88.0.10", RangeEnd: "10.88.0.250",
			Exclude: []string{"10.88.0.3-10.88.0.9"}, ServerIP: serverIP, Router: "10.88.0.1",
			DNS: []string{"10.88.0.1"}, LeaseTime: &lease,
			IPv6: &v1alpha1.IPPoolIPv6Spec{
				CIDR: "fd00:88::/64", RangeStart: "fd00:88::100", Reserved: []string{serverIP6},
				DNS: []string{"fd00:88::53"}, DomainSearch: []string{"lab.example"},
				PreferredLifetime: &metav1.Duration{Duration: 8 * time.Second},
				ValidLifetime:     &metav1.Duration{Duration: 16 * time.Second},
			},
		},
	}
}

// setUp builds the whole system, with one agent at the pool's server
// address, and waits until every client is bound to its pool's address
// and has renewed once.
func setUp(t *testing.T) *system {
	netnstest.Require(t)
	s := &system{t: t}
	began := time.Now()
	// The build and the control plane's start overlap: each takes tens
	// of seconds on a loaded machine.
	built := make(chan error, 1)
	opBin, agentBin := filepath.Join(t.TempDir(), "operator"), filepath.Join(t.TempDir(), "dhcpagent")
	go func() { built <- buildBinaries(opBin, agentBin) }()
	s.cp = startControlPlane(t)
	if err := <-built; err != nil {
		t.Fatal(err)
	}
	s.binOp, s.binAgent = opBin, agentBin
	var err error
	if s.c, err = client.New(s.cp.cfg, client.Options{Scheme: scheme}); err != nil {
		t.Fatal(err)
	}
	kubetest.GrantRole(t, s.cp.cfg, "../../operator/config/rbac/role.yaml", "vmnetkit-operator")
	kubetest.GrantRole(t, s.cp.cfg, "../config/rbac/role.yaml", "vmnetkit-dhcpagent")
	s.opConfig = kubetest.Kubeconfig(t, s.cp.cfg, "vmnetkit-operator")
	s.agentCfg = rest.CopyConfig(s.cp.cfg)
	s.agentCfg.Host = "https://" + apiPort
	t.Logf("binaries built and control plane up in %v", time.Since(began).Round(time.Millisecond))

	s.seg = newSegment(t)
	s.startOperator()
	if err := s.c.Create(context.Background(), newPool()); err != nil {
		t.Fatal(err)
	}
	for i, spec := range clientSpecs {
		s.clients = append(s.clients, s.newClient(i, spec))
	}
	s.waitConfigs()
	s.agents = append(s.agents, s.newAgent("agent-a", serverIP+"/24", serverIP6+"/64"))
	s.agents[0].start()
	for _, c := range s.clients {
		c.start()
	}
	for _, c := range s.clients {
		c.waitBound(45 * time.Second)
	}
	for _, c := range s.clients {
		c.waitRenewal(time.Now(), 40*time.Second)
	}
	t.Logf("the whole system up, every client bound and renewed once, %v after the start", time.Since(began).Round(time.Millisecond))
	return s
}

// waitConfigs waits until every client's VMNetworkConfig has its
// addresses, and records them as each client's expected addresses.
func (s *system) waitConfigs() {
	s.t.Helper()
	kubetest.Eventually(s.t, 60*time.Second, "every client's config served", func() (bool, string) {
		for _, c := range s.clients {
			cfg := &v1alpha1.VMNetworkConfig{}
			if err := s.c.Get(context.Background(), client.ObjectKey{Namespace: poolNS, Name: c.config}, cfg); err != nil {
				return false, err.Error()
			}
			if len(cfg.Status.NICs) != 1 || cfg.Status.NICs[0].Address == "" || cfg.Status.NICs[0].IPv6Address == "" {
				return false, fmt.Sprintf("%s: status %+v", c.config, cfg.Status)
			}
			c.expect(time.Now(), netip.MustParseAddr(cfg.Status.NICs[0].Address), netip.MustParseAddr(cfg.Status.NICs[0].IPv6Address))
		}
		return true, ""
	})
}
