package controller

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/examples/internal/conflict"
	"github.com/vmnetkit/vmnetkit/kube"
)

// failure is a Ready=False to write on a claim.
type failure struct{ reason, message string }

// ready writes the claim's addressRef and Ready=True.
func (r *claimReconciler) ready(ctx context.Context, claim *ipamv1.IPAddressClaim, ip *ipamv1.IPAddress) (reconcile.Result, error) {
	upd := claim.DeepCopy()
	upd.Status.AddressRef = ipamv1.IPAddressReference{Name: ip.Name}
	r.setReady(upd, conditions.ConditionTrue, ReasonAllocated, fmt.Sprintf("%s/%d", ip.Spec.Address, derefPrefix(ip.Spec.Prefix)))
	return conflict.Requeue(r.writeStatus(ctx, claim, upd))
}

// fail writes Ready=False with f, and no addressRef.
func (r *claimReconciler) fail(ctx context.Context, claim *ipamv1.IPAddressClaim, f failure) (reconcile.Result, error) {
	upd := claim.DeepCopy()
	upd.Status.AddressRef = ipamv1.IPAddressReference{}
	r.setReady(upd, conditions.ConditionFalse, f.reason, f.message)
	return conflict.Requeue(r.writeStatus(ctx, claim, upd))
}

// wait is fail, retried after r.waiting.
func (r *claimReconciler) wait(ctx context.Context, claim *ipamv1.IPAddressClaim, reason, message string) (reconcile.Result, error) {
	res, err := r.fail(ctx, claim, failure{reason, message})
	res.RequeueAfter = r.waiting
	return res, err
}

func (r *claimReconciler) setReady(claim *ipamv1.IPAddressClaim, status conditions.Status, reason, message string) {
	claim.Status.Conditions, _ = kube.SetMeta(claim.Status.Conditions, conditions.Condition{
		Type: ipamv1.IPAddressClaimReadyCondition, Status: status, Reason: reason, Message: message,
		ObservedGeneration: claim.Generation,
	}, r.now())
}

// writeStatus writes upd's status if it differs from claim's: only this
// provider writes a claim's status. The patch tests the claim's UID, so a
// status meant for a claim that was deleted and made again under its name
// meanwhile does not land on the new one (whose reconcile writes its
// own): that is a Conflict, and NotFound the claim gone, for
// conflict.Requeue. No resourceVersion is needed, and a failed test
// costs one read.
func (r *claimReconciler) writeStatus(ctx context.Context, claim, upd *ipamv1.IPAddressClaim) error {
	if equality.Semantic.DeepEqual(claim.Status, upd.Status) {
		return nil
	}
	status, err := json.Marshal(upd.Status)
	if err != nil {
		return err
	}
	patch := fmt.Sprintf(`[{"op":"test","path":"/metadata/uid","value":%q},{"op":"add","path":"/status","value":%s}]`, claim.UID, status)
	err = r.client.Status().Patch(ctx, upd, client.RawPatch(types.JSONPatchType, []byte(patch)))
	if !isUnprocessable(err) {
		return err
	}
	// A failed test and an invalid status are both 422: the claim, read
	// again, tells them apart (an invalid status is returned as it is, for
	// the back-off).
	now := &ipamv1.IPAddressClaim{}
	if err := r.reader.Get(ctx, client.ObjectKeyFromObject(claim), now); err != nil {
		return err
	}
	if now.UID != claim.UID {
		return apierrors.NewConflict(ipamv1.GroupVersion.WithResource("ipaddressclaims").GroupResource(), claim.Name, err)
	}
	return err
}

func derefPrefix(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}
