package manager

import (
	"flag"
	"fmt"
	"time"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	"github.com/vmnetkit/vmnetkit/kube"
)

// Defaults of ControllerOptions.
const (
	DefaultMaxConcurrentClaims = 8
	DefaultRetryWaiting        = 2 * time.Second
)

// ControllerOptions are the options that the Setup of every controller
// adapter with a pool cache (the operator, capiipam) takes; each adapter's
// Options embeds them. The zero value is usable: WithDefaults fills it in.
type ControllerOptions struct {
	// Epoch names this process in the pools' status (status.cacheEpoch);
	// it must differ between processes and between restarts. Empty:
	// kube.NewEpoch().
	Epoch string

	// Now is the clock for conditions' transition times. Nil: time.Now.
	Now func() time.Time

	// MaxConcurrentClaims is how many claims are reconciled at once.
	// Zero or less: DefaultMaxConcurrentClaims.
	MaxConcurrentClaims int

	// RetryWaiting is how soon a claim that waits (for its pool's cache,
	// or for a free address) is retried. Zero or less:
	// DefaultRetryWaiting.
	RetryWaiting time.Duration

	// SkipNameValidation lets several managers register the same
	// controllers in one process (tests); controller-runtime refuses
	// duplicate names otherwise.
	SkipNameValidation bool
}

// WithDefaults returns o with each unset field at its default; the epoch is
// a new random one.
func (o ControllerOptions) WithDefaults() ControllerOptions {
	if o.Epoch == "" {
		o.Epoch = kube.NewEpoch()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxConcurrentClaims <= 0 {
		o.MaxConcurrentClaims = DefaultMaxConcurrentClaims
	}
	if o.RetryWaiting <= 0 {
		o.RetryWaiting = DefaultRetryWaiting
	}
	return o
}

// PoolController returns the controller options of a pool reconciler
// (controller-runtime's default of one worker).
func (o ControllerOptions) PoolController() controller.Options {
	return controller.Options{SkipNameValidation: ptr.To(o.SkipNameValidation)}
}

// ClaimController returns the controller options of a claim reconciler:
// MaxConcurrentClaims workers.
func (o ControllerOptions) ClaimController() controller.Options {
	return controller.Options{
		MaxConcurrentReconciles: o.MaxConcurrentClaims,
		SkipNameValidation:      ptr.To(o.SkipNameValidation),
	}
}

// AddFlags registers the flags of o every controller command shares:
// -epoch and -concurrent-claims (claims names what a claim is, for the
// help). Check them with Validate after parsing.
func (o *ControllerOptions) AddFlags(fs *flag.FlagSet, claims string) {
	fs.StringVar(&o.Epoch, "epoch", "", "this process's cache epoch, written to each pool's status.cacheEpoch (default: random; set only in tests)")
	fs.IntVar(&o.MaxConcurrentClaims, "concurrent-claims", DefaultMaxConcurrentClaims, claims+" reconciled at once")
}

// Validate checks the values of the flags AddFlags registers that flag
// parsing alone accepts.
func (o *ControllerOptions) Validate() error {
	if o.MaxConcurrentClaims <= 0 {
		return fmt.Errorf("-concurrent-claims=%d: must be positive", o.MaxConcurrentClaims)
	}
	return nil
}
