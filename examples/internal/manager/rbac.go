package manager

// The permissions the wiring of New needs, in every command's generated
// role (hack/generate.sh reads this package with each controller's): the
// leader election Lease for -leader-elect and the events the elector
// records on it ("became leader", "stopped leading"), and the reviews of a scrape's
// token for -metrics-secure (controller-runtime's authn/authz filter asks
// the API server about every request to /metrics).
//
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create
