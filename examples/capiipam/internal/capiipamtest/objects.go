package capiipamtest

import (
	"context"
	"fmt"
	"net/netip"
	"sort"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// Never checks cond stays false for d.
func Never(t testing.TB, d time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if ok, msg := cond(); ok {
			t.Fatalf("%s: %s", what, msg)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Create creates objs, failing t on the first error.
func Create(t testing.TB, c client.Client, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := c.Create(context.Background(), o); err != nil {
			t.Fatalf("create %T %s: %v", o, o.GetName(), err)
		}
	}
}

// Get reads o again, and reports whether it exists. A read the API server
// fails transiently is tried again (Retry).
func Get(t testing.TB, c client.Client, o client.Object) bool {
	t.Helper()
	err := Retry(func(int) error { return c.Get(context.Background(), client.ObjectKeyFromObject(o), o) })
	if client.IgnoreNotFound(err) != nil {
		t.Fatal(err)
	}
	return err == nil
}

// Update reads o, applies change to it and writes it, again from the read
// when a write of the provider's (a pool's status) came in between.
func Update(t testing.TB, c client.Client, o client.Object, change func()) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		Get(t, c, o)
		change()
		return c.Update(context.Background(), o)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// WaitAddress waits until the claim name has an addressRef and returns its
// IPAddress.
func WaitAddress(t testing.TB, c client.Client, ns, name string) *ipamv1.IPAddress {
	t.Helper()
	claim := &ipamv1.IPAddressClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	kubetest.Eventually(t, 30*time.Second, "allocated to "+name, func() (bool, string) {
		if !Get(t, c, claim) {
			return false, "claim not found"
		}
		return claim.Status.AddressRef.Name != "", fmt.Sprintf("status %+v", claim.Status)
	})
	ip := &ipamv1.IPAddress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: claim.Status.AddressRef.Name}}
	if !Get(t, c, ip) {
		t.Fatalf("claim %s: addressRef %q names no IPAddress", name, claim.Status.AddressRef.Name)
	}
	return ip
}

// WaitReason waits until the claim's Ready condition is False with reason.
func WaitReason(t testing.TB, c client.Client, ns, name, reason string) metav1.Condition {
	t.Helper()
	claim := &ipamv1.IPAddressClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	var got metav1.Condition
	kubetest.Eventually(t, 30*time.Second, name+" Ready=False "+reason, func() (bool, string) {
		if !Get(t, c, claim) {
			return false, "claim not found"
		}
		cond, ok := ReadyCondition(claim)
		got = cond
		return ok && cond.Status == metav1.ConditionFalse && cond.Reason == reason, fmt.Sprintf("%+v", claim.Status)
	})
	if claim.Status.AddressRef.Name != "" {
		t.Errorf("claim %s: addressRef %q with Ready=False", name, claim.Status.AddressRef.Name)
	}
	return got
}

// CheckUnique lists the IPAddresses of ns and fails t if two of one pool
// hold one address; it returns the addresses by IPAddress name.
func CheckUnique(t testing.TB, c client.Client, ns string) map[string]netip.Addr {
	t.Helper()
	var list ipamv1.IPAddressList
	if err := Retry(func(int) error { return c.List(context.Background(), &list, client.InNamespace(ns)) }); err != nil {
		t.Fatal(err)
	}
	byName := map[string]netip.Addr{}
	seen := map[string]string{}
	var dups []string
	for _, ip := range list.Items {
		a := netip.MustParseAddr(ip.Spec.Address)
		k := ip.Spec.PoolRef.Kind + "/" + ip.Spec.PoolRef.Name + "/" + a.String()
		if other, ok := seen[k]; ok {
			dups = append(dups, fmt.Sprintf("%s held by %s and %s", k, other, ip.Name))
		}
		seen[k] = ip.Name
		byName[ip.Name] = a
	}
	if len(dups) > 0 {
		sort.Strings(dups)
		t.Fatalf("%d addresses handed out twice, first: %s", len(dups), dups[0])
	}
	return byName
}
