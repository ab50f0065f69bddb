package kubetest

// ClusterAPICRDs returns the paths of the CRD manifests of Cluster API's
// IPAddressClaim, IPAddress and Cluster, from the sigs.k8s.io/cluster-api
// module the calling package is built with (see ModuleCRDs).
func ClusterAPICRDs() ([]string, error) {
	return ModuleCRDs("sigs.k8s.io/cluster-api", "ipam.cluster.x-k8s.io_ipaddressclaims.yaml",
		"ipam.cluster.x-k8s.io_ipaddresses.yaml", "cluster.x-k8s.io_clusters.yaml")
}
