package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/lastgood"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// crds are the IPPool CRD (the operator's) and Multus's
// NetworkAttachmentDefinition, which config/manager uses.
var crds = []string{filepath.Join("..", "operator", "config", "crd"), filepath.Join("testdata", "crd")}

// TestManifests applies config/ (generated role, manager with the VM
// network attachment) to the real API server, with dry-run for all but
// the Namespace; and config/ha, the two agents of one pool, beside the
// role.
func TestManifests(t *testing.T) {
	cfg := kubetest.Start(t, crds...)
	kinds := []string{"Namespace", "ServiceAccount", "Deployment", "ClusterRole", "ClusterRoleBinding", "NetworkAttachmentDefinition"}
	for _, tc := range []struct {
		name  string
		dirs  []string
		kinds []string
	}{
		{"one agent", []string{"rbac", "manager"}, append(kinds, "Service")},
		{"two agents", []string{"rbac", "ha"}, kinds},
	} {
		t.Run(tc.name, func(t *testing.T) {
			all := kubetest.ReadManifests(t, "config", tc.dirs...)
			kubetest.WantKinds(t, kubetest.ApplyManifests(t, cfg, all), tc.kinds...)
		})
	}
}

// TestDeploymentMatchesFlags: each Deployment, the one agent's and the
// two agents' of config/ha, runs the agent with flags it parses (after
// the kubelet's $(POD_IP) expansion), its probes and metrics port are
// those the flags open, it serves the interface Multus attaches, it holds
// no capability and runs as a non-root user, one replica recreated, and
// its account holds the generated role.
func TestDeploymentMatchesFlags(t *testing.T) {
	for _, tc := range []struct{ dir, name string }{
		{"manager", "vmnetkit-dhcpagent"},
		{"ha", "vmnetkit-dhcpagent-a"},
		{"ha", "vmnetkit-dhcpagent-b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			all := kubetest.ReadManifests(t, "config", "rbac", tc.dir)
			dep, c := deployedAgent(t, all, tc.name)
			checkDeployment(t, all, dep, c)
		})
	}
}

// TestTwoAgentsDeployment: the two agents of config/ha each answer as
// their own address on the VM network (-server-ip iface, and two
// distinct static addresses), name each other as peers, serve the same
// pool, and never share a node.
func TestTwoAgentsDeployment(t *testing.T) {
	all := kubetest.ReadManifests(t, "config", "ha")
	addrs := map[string]netip.Addr{}
	for _, m := range all {
		if m.Obj.GetKind() != "NetworkAttachmentDefinition" {
			continue
		}
		conf, _, _ := unstructured.NestedString(m.Obj.Object, "spec", "config")
		var cni struct {
			IPAM struct {
				Addresses []struct{ Address string } `json:"addresses"`
			} `json:"ipam"`
		}
		if err := json.Unmarshal([]byte(conf), &cni); err != nil || len(cni.IPAM.Addresses) != 1 {
			t.Fatalf("%s: config %s: want one static address (%v)", m.Obj.GetName(), conf, err)
		}
		addrs[m.Obj.GetName()] = netip.MustParsePrefix(cni.IPAM.Addresses[0].Address).Addr()
	}
	type agent struct {
		id    netip.Addr
		c     *config
		dep   *appsv1.Deployment
		other string
	}
	agents := map[string]*agent{"vmnetkit-dhcpagent-a": {other: "vmnetkit-dhcpagent-b"}, "vmnetkit-dhcpagent-b": {other: "vmnetkit-dhcpagent-a"}}
	for name, a := range agents {
		a.dep, a.c = deployedAgent(t, all, name)
		var nets []struct{ Name string }
		if err := json.Unmarshal([]byte(a.dep.Spec.Template.Annotations["k8s.v1.cni.cncf.io/networks"]), &nets); err != nil || len(nets) != 1 {
			t.Fatalf("%s: networks annotation: %v", name, err)
		}
		a.id = addrs[nets[0].Name]
		if a.c.serverIP != "iface" || !a.id.IsValid() {
			t.Errorf("%s: -server-ip %q on network %s (%s): want iface, on an address of its own", name, a.c.serverIP, nets[0].Name, a.id)
		}
	}
	a, b := agents["vmnetkit-dhcpagent-a"], agents["vmnetkit-dhcpagent-b"]
	if a.id == b.id || a.c.ippool != b.c.ippool {
		t.Errorf("server identifiers %s and %s, pools %s and %s: want two addresses, one pool", a.id, b.id, a.c.ippool, b.c.ippool)
	}
	for name, x := range agents {
		peer := agents[x.other]
		if !slices.ContainsFunc(x.c.peers4, func(p netip.Prefix) bool { return p.Contains(peer.id) }) {
			t.Errorf("%s: -peers4 %v does not hold its peer's identifier %s", name, x.c.peers4, peer.id)
		}
		anti := x.dep.Spec.Template.Spec.Affinity
		if anti == nil || anti.PodAntiAffinity == nil || len(anti.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 {
			t.Fatalf("%s: want one required pod anti-affinity term", name)
		}
		term := anti.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0]
		sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
		if err != nil || term.TopologyKey != "kubernetes.io/hostname" || !sel.Matches(labels.Set(peer.dep.Spec.Template.Labels)) {
			t.Errorf("%s: anti-affinity %+v: want the peer's pods kept off its node (%v)", name, term, err)
		}
	}
}

// deployedAgent is the Deployment named name in all and its container's
// flags, parsed after the kubelet's $(POD_IP) expansion.
func deployedAgent(t *testing.T, all []kubetest.Manifest, name string) (*appsv1.Deployment, *config) {
	t.Helper()
	dep := &appsv1.Deployment{}
	kubetest.Typed(t, all, "Deployment", name, dep)
	pod := dep.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	ctr := pod.Containers[0]
	args := make([]string, len(ctr.Args))
	for i, a := range ctr.Args {
		args[i] = strings.ReplaceAll(a, "$(POD_IP)", "10.244.0.7")
	}
	c, err := parse(args, io.Discard)
	if err != nil {
		t.Fatalf("the Deployment's args %q: %v", ctr.Args, err)
	}
	return dep, c
}

// checkDeployment checks what every agent's Deployment must hold (see
// TestDeploymentMatchesFlags).
func checkDeployment(t *testing.T, all []kubetest.Manifest, dep *appsv1.Deployment, c *config) {
	t.Helper()
	pod := dep.Spec.Template.Spec
	ctr := pod.Containers[0]
	kubetest.CheckProbes(t, ctr, c.ProbeAddr, c.MetricsAddr)
	if c.ippool == "" || c.listen.Port != 67 || c.stateDir == "" {
		t.Errorf("-ippool %q -listen %s -state-dir %q: want an IPPool from the API server, port 67, a last-good copy", c.ippool, c.listen, c.stateDir)
	}
	if r := dep.Spec.Replicas; r == nil || *r != 1 || dep.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		t.Errorf("replicas %v, strategy %q: want 1 and Recreate (one agent per server address)", r, dep.Spec.Strategy.Type)
	}
	// The interface the agent serves is the one Multus attaches.
	networks := dep.Spec.Template.Annotations["k8s.v1.cni.cncf.io/networks"]
	if !strings.Contains(networks, `"interface": "`+c.iface+`"`) || c.iface == "" {
		t.Errorf("-iface %q, Multus networks %s: want the attached interface", c.iface, networks)
	}
	sc, psc := ctr.SecurityContext, pod.SecurityContext
	if sc == nil || sc.Capabilities == nil || len(sc.Capabilities.Add) != 0 || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" {
		t.Errorf("container capabilities %+v: want all dropped, none added", sc)
	}
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || pod.HostNetwork {
		t.Errorf("pod security context %+v, hostNetwork %v: want non-root, own network namespace", psc, pod.HostNetwork)
	}
	var port67 bool
	for _, s := range psc.Sysctls {
		port67 = port67 || s.Name == "net.ipv4.ip_unprivileged_port_start" && s.Value == "67"
	}
	if !port67 {
		t.Errorf("sysctls %+v: want net.ipv4.ip_unprivileged_port_start=67, so that a non-root agent binds port 67", psc.Sysctls)
	}
	kubetest.CheckBinding(t, all, dep.Namespace, pod, "vmnetkit-dhcpagent")
}

// TestRunAsRole runs the agent in API-server mode as a user holding only
// the generated role, through $KUBECONFIG (no -kubeconfig): /readyz
// answers 200 once the IPPool's table is loaded and the loop serves; the
// agent offers a client its address from status.allocated on loopback, and
// records the client's DECLINE, sent right after its ACK, as a Warning event
// on the IPPool. It starts with -state-dir holding a stale last-good copy
// (the client's MAC at another address): the API server answers, so its
// version is served, never the copy, and the copy is replaced by it.
func TestRunAsRole(t *testing.T) {
	cfg := kubetest.Start(t, crds...)
	c, err := client.New(cfg, client.Options{Scheme: kubetest.NewScheme(v1alpha1.AddToScheme)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	user := "vmnetkit-dhcpagent-test"
	kubetest.GrantRole(t, cfg, filepath.Join("config", "rbac", "role.yaml"), user)
	t.Setenv("KUBECONFIG", kubetest.Kubeconfig(t, cfg, user))

	pool := &v1alpha1.IPPool{}
	data, err := os.ReadFile(filepath.Join("..", "operator", "config", "samples", "ippool.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, pool); err != nil {
		t.Fatal(err)
	}
	pool.Namespace = "default"
	if err := c.Create(ctx, pool); err != nil {
		t.Fatal(err)
	}
	const mac, addr = "52:54:00:aa:bb:01", "192.168.50.10"
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(pool), pool); err != nil {
			return err
		}
		pool.Status.Allocated = map[string]string{addr: mac}
		return c.Status().Update(ctx, pool)
	})
	if err != nil {
		t.Fatal(err)
	}

	stateDir := t.TempDir()
	stale := lastgood.New(stateDir, "default/"+pool.Name)
	if err := stale.Save([]byte(`{"metadata":{"name":"`+pool.Name+`","namespace":"default","resourceVersion":"1"},`+
		`"spec":{"cidr":"192.168.50.0/24","serverIP":"192.168.50.2"},"status":{"allocated":{"192.168.50.99":"`+mac+`"}}}`), "1", time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	probes := kubetest.FreeAddr(t)
	log := kubetest.RunCommand(t, run, "-ippool", "default/"+pool.Name, "-listen", "127.0.0.1:0",
		"-health-probe-bind-address", probes, "-summary", "0", "-state-dir", stateDir, "-state-wait", "30s")
	kubetest.WaitHTTP(t, "http://"+probes+"/readyz", http.StatusOK, 60*time.Second, log)
	kubetest.WaitHTTP(t, "http://"+probes+"/healthz", http.StatusOK, 10*time.Second, log)
	serving := regexp.MustCompile(`"serving" addr="([^"]+)"`).FindStringSubmatch(log.String())
	if serving == nil {
		t.Fatalf("ready, but no serving line; log:\n%s", log.String())
	}
	server, err := net.ResolveUDPAddr("udp4", serving[1])
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	hw, _ := net.ParseMAC(mac)
	discover, err := dhcpv4.NewDiscovery(hw)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.WriteToUDP(discover.ToBytes(), server); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 1500)
	n, err := conn.Read(buf)
	if err != nil {
		t.Fatalf("no reply to the DISCOVER: %v; log:\n%s", err, log.String())
	}
	offer, err := dhcpv4.FromBytes(buf[:n])
	if err != nil {
		t.Fatal(err)
	}
	if offer.MessageType() != dhcpv4.MessageTypeOffer || offer.YourIPAddr.String() != addr {
		t.Fatalf("reply %s of %s, want OFFER of %s", offer.MessageType(), offer.YourIPAddr, addr)
	}
	if saved, err := stale.Load(); err != nil || saved.ResourceVersion == "1" || !strings.Contains(string(saved.Data), addr) {
		t.Errorf("the last-good copy after the API server's version: resourceVersion %q, %v; want the API server's, with %s", saved.ResourceVersion, err, addr)
	}
	if strings.Contains(log.String(), "serving the last-good copy") {
		t.Errorf("the stale copy was served while the API server answered; log:\n%s", log.String())
	}

	// A client declines right after the ACK that bound the address (a
	// DECLINE without one is dropped: see the agent's DECLINE rule).
	request, err := dhcpv4.NewRequestFromOffer(offer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.WriteToUDP(request.ToBytes(), server); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err = conn.Read(buf); err != nil {
		t.Fatalf("no reply to the REQUEST: %v; log:\n%s", err, log.String())
	}
	ack, err := dhcpv4.FromBytes(buf[:n])
	if err != nil {
		t.Fatal(err)
	}
	if ack.MessageType() != dhcpv4.MessageTypeAck || ack.YourIPAddr.String() != addr {
		t.Fatalf("reply %s of %s, want ACK of %s", ack.MessageType(), ack.YourIPAddr, addr)
	}

	decline, err := dhcpv4.New(dhcpv4.WithHwAddr(hw), dhcpv4.WithMessageType(dhcpv4.MessageTypeDecline),
		dhcpv4.WithOption(dhcpv4.OptServerIdentifier(offer.ServerIdentifier())),
		dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(offer.YourIPAddr)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.WriteToUDP(decline.ToBytes(), server); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var events corev1.EventList
		if err := c.List(ctx, &events, client.InNamespace("default")); err != nil {
			t.Fatal(err)
		}
		var found *corev1.Event
		for i, e := range events.Items {
			if e.Reason == "AddressDeclined" && e.InvolvedObject.Kind == "IPPool" && e.InvolvedObject.Name == pool.Name {
				found = &events.Items[i]
			}
		}
		if found != nil {
			if found.Type != corev1.EventTypeWarning || !strings.Contains(found.Message, addr) {
				t.Errorf("event %s %q, want a Warning naming %s", found.Type, found.Message, addr)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no AddressDeclined event on the IPPool within 30s; log:\n%s", log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The agent reads nothing it may not: no "forbidden" in its log.
	if strings.Contains(log.String(), "forbidden") {
		t.Errorf("the agent was refused a request; log:\n%s", log.String())
	}
}
