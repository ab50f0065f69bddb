// Package clusterctltest holds no code: its tests install capiipam with
// clusterctl's own library (sigs.k8s.io/cluster-api/cmd/clusterctl/client,
// at the version of examples/go.mod) into real API servers from a file
// repository of the release assets (../ipam-components.yaml,
// ../metadata.yaml), and move a management cluster's Clusters, claims and
// pools from one API server to another with clusterctl's mover.
//
// What stands in for what envtest does not run, in each test:
//
//   - Cluster API's core provider is installed by the same clusterctl init,
//     from a file repository whose core-components.yaml holds Cluster API's
//     own CRDs of the module (Cluster, IPAddressClaim, IPAddress) and its
//     Namespace, without its controllers, beside the module's own
//     metadata.yaml;
//   - cert-manager, which clusterctl init checks for, is two schema-less
//     CRDs (testdata/cert-manager-crds.yaml);
//   - capiipam's Deployment, which no kubelet runs, is capiipam's
//     controllers in the test process, authenticated as the ServiceAccount
//     clusterctl init created, with the ClusterRoleBinding it created;
//   - a Cluster's controllers are the test, which writes the status a
//     provisioned Cluster has (clusterctl move refuses others), and owns
//     each claim by its Cluster, as an infrastructure Machine's chain of
//     owners would.
package clusterctltest
