package controller

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/conditions/cacheready"
	"github.com/vmnetkit/vmnetkit/examples/kubebridge"
)

// storedCacheReady returns the CacheReady condition stored in conds, or nil,
// as cacheready.Observed takes it.
func storedCacheReady(conds []metav1.Condition) *conditions.Condition {
	c, ok := conditions.Find(kubebridge.FromMeta(conds), cacheready.Type)
	if !ok {
		return nil
	}
	return &c
}
