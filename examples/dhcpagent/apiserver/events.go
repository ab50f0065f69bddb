package apiserver

import (
	"net/netip"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
)

// DeclineEvents returns a function that records a DECLINE (the client's
// MAC, the address it declined, the end of the address's probation: an
// agent.Decline's fields, for agent.WithDeclineHook) as a Warning event,
// reason AddressDeclined, on the object latest returns (the IPPool the
// table came from: IPPoolWatch.Latest) through recorder, so that the
// operator or a person sees an address in conflict where they look at the
// pool. Nothing is recorded while latest returns nil. The recorder queues;
// the function does not block.
func DeclineEvents(latest func() *unstructured.Unstructured, recorder record.EventRecorder) func(mac string, addr netip.Addr, until time.Time) {
	return func(mac string, addr netip.Addr, until time.Time) {
		obj := latest()
		if obj == nil {
			return
		}
		recorder.Eventf(obj, corev1.EventTypeWarning, "AddressDeclined",
			"client %s declined %s (another host answers for it?); not offered again until %s",
			mac, addr, until.UTC().Format(time.RFC3339))
	}
}

// NewEventRecorder returns an event recorder that writes core/v1 Events
// through client as component "dhcpagent", and the function that flushes
// and stops it.
func NewEventRecorder(client kubernetes.Interface) (record.EventRecorder, func()) {
	b := record.NewBroadcaster()
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	return b.NewRecorder(clientgoscheme.Scheme, corev1.EventSource{Component: "dhcpagent"}), b.Shutdown
}
