package command

import (
	"flag"
	"fmt"
)

// Off is the value of an address flag that turns its server off.
const Off = "0"

// Flags is the command line the commands share: one spelling of each flag
// across the operator, capiipam, the provider and the DHCP agent. Register
// it with manager.AddFlags (a controller: all of them) or with its Add
// methods one by one (the agent, which takes only some), which set the
// defaults, then read it after the flag set is parsed. A zero Flags is a
// kubeconfig found by the default rule, every server off, the loaded
// client limits.
type Flags struct {
	Kubeconfig string  // -kubeconfig: "" resolves as RESTConfig says
	QPS        float64 // -kube-api-qps: negative: no client-side limit
	Burst      int     // -kube-api-burst: 0: twice QPS

	MetricsAddr    string // -metrics-bind-address: "0" (or "") is off
	MetricsSecure  bool   // -metrics-secure
	MetricsCertDir string // -metrics-cert-dir
	ProbeAddr      string // -health-probe-bind-address: "0" (or "") is off

	LeaderElect             bool   // -leader-elect
	LeaderElectionNamespace string // -leader-election-namespace

	Namespace string // -namespace: "" watches every namespace
}

// AddKubeconfig registers -kubeconfig.
func (f *Flags) AddKubeconfig(fs *flag.FlagSet) {
	fs.StringVar(&f.Kubeconfig, "kubeconfig", "", "path to a kubeconfig `file` (default: $KUBECONFIG, the in-cluster config, ~/.kube/config, in that order)")
}

// AddClientLimits registers -kube-api-qps and -kube-api-burst.
func (f *Flags) AddClientLimits(fs *flag.FlagSet) {
	fs.Float64Var(&f.QPS, "kube-api-qps", -1, "client-side limit of API requests a second; negative: none (the API server's priority and fairness limits)")
	fs.IntVar(&f.Burst, "kube-api-burst", 0, "client-side burst of API requests above -kube-api-qps (default: twice it)")
}

// AddMetrics registers -metrics-bind-address, and with secure also
// -metrics-secure (default true) and -metrics-cert-dir.
func (f *Flags) AddMetrics(fs *flag.FlagSet, secure bool) {
	fs.StringVar(&f.MetricsAddr, "metrics-bind-address", Off, `address the Prometheus metrics endpoint (/metrics) binds to, such as ":8443"; "0" turns it off`)
	if !secure {
		return
	}
	fs.BoolVar(&f.MetricsSecure, "metrics-secure", true, "serve /metrics over HTTPS and only to callers the API server authenticates (TokenReview) and authorizes for GET /metrics (SubjectAccessReview); false serves plain HTTP to anyone")
	fs.StringVar(&f.MetricsCertDir, "metrics-cert-dir", "", "folder holding tls.crt and tls.key for -metrics-secure (default: a self-signed certificate made at start)")
}

// AddProbes registers -health-probe-bind-address; ready says when /readyz
// answers ok, for its help.
func (f *Flags) AddProbes(fs *flag.FlagSet, ready string) {
	fs.StringVar(&f.ProbeAddr, "health-probe-bind-address", Off, `address /healthz (liveness) and /readyz (readiness: `+ready+`) bind to, such as ":8081"; "0" turns them off`)
}

// BindAddress returns addr as a server of controller-runtime or net.Listen
// takes it, and whether the server is on: "0" and "" are off.
func BindAddress(addr string) (string, bool) {
	if addr == "" || addr == Off {
		return Off, false
	}
	return addr, true
}

// Validate checks the values that flag parsing alone accepts.
func (f *Flags) Validate() error {
	if f.Burst < 0 {
		return fmt.Errorf("-kube-api-burst=%d: must not be negative", f.Burst)
	}
	return nil
}

// Shared returns f: a command's own flags type, which embeds *Flags, has it
// too, so code that checks any command's shared flags can take them all.
func (f *Flags) Shared() *Flags { return f }
