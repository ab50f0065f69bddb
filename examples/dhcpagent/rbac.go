package main

// The permissions the agent needs with -ippool (config/rbac/role.yaml is
// generated from these markers): to read and watch its one IPPool, and to
// record each DECLINE as an event on it. With -pool (a file) it needs
// none.
//
// +kubebuilder:rbac:groups=network.vmnetkit.dev,resources=ippools,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
