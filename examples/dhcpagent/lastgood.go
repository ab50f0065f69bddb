package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/agent"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/apiserver"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/lastgood"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
)

// lastGood is -state-dir in API-server mode: every version of the pool the
// agent loads is saved as the last-good copy, and a start that finds the
// API server silent for -state-wait serves the copy until the API server
// answers, whose version then replaces it.
type lastGood struct {
	store   *lastgood.Store
	log     logr.Logger
	now     func() time.Time
	serving atomic.Pointer[lastgood.Copy] // the copy the table came from; nil: the API server's version
}

func newLastGood(dir, pool string, log logr.Logger) *lastGood {
	return &lastGood{store: lastgood.New(dir, pool), log: log, now: time.Now}
}

// apply is next, the agent's load, followed by a save of the version it
// loaded; a version the agent refused is not saved. A save that fails is
// logged: the table is served all the same, and the copy on disk stays
// the previous one, whole.
func (g *lastGood) apply(next poolsource.Apply) poolsource.Apply {
	return func(p *poolsource.Pool) error {
		if err := next(p); err != nil {
			return err
		}
		if c := g.serving.Swap(nil); c != nil {
			g.log.Info("the API server answered: its version of the pool replaces the last-good copy",
				"resourceVersion", p.Metadata.ResourceVersion, "copyResourceVersion", c.ResourceVersion)
		}
		data, err := json.Marshal(p)
		if err == nil {
			err = g.store.Save(data, p.Metadata.ResourceVersion, g.now())
		}
		if err != nil {
			g.log.Error(err, "last-good copy not saved; the previous one stays", "path", g.store.Path())
		}
		return nil
	}
}

// serveCopy loads the last-good copy into a, or says why it cannot.
func (g *lastGood) serveCopy(a *agent.Agent) error {
	c, err := g.store.Load()
	if err != nil {
		return err
	}
	p, err := poolsource.DecodePool(c.Data)
	if err != nil {
		return fmt.Errorf("last-good copy %s: %w", g.store.Path(), err)
	}
	if _, err := a.Apply(p); err != nil {
		return fmt.Errorf("last-good copy %s: %w", g.store.Path(), err)
	}
	g.serving.Store(&c)
	g.log.Info("the API server has not answered: serving the last-good copy of the pool", "path", g.store.Path(),
		"resourceVersion", c.ResourceVersion, "written", c.Written.Format(time.RFC3339), "age", g.now().Sub(c.Written).Round(time.Second).String())
	return nil
}

// note is what /readyz adds while the copy is served: its age. A nil
// lastGood (no -state-dir) adds nothing.
func (g *lastGood) note() string {
	if g == nil {
		return ""
	}
	c := g.serving.Load()
	if c == nil {
		return ""
	}
	return fmt.Sprintf("serving the last-good copy of the pool (resourceVersion %s), written %s ago: the API server has not answered",
		c.ResourceVersion, g.now().Sub(c.Written).Round(time.Second))
}

// collector is dhcpagent_last_good_served_age_seconds: the age of the
// last-good copy being served, 0 while the table is the API server's.
func (g *lastGood) collector() prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "dhcpagent_last_good_served_age_seconds",
		Help: "Age of the last-good copy of the pool being served (the API server has not answered since the start); 0 while the table is the API server's."},
		func() float64 {
			if c := g.serving.Load(); c != nil {
				return g.now().Sub(c.Written).Seconds()
			}
			return 0
		})
}

// startWatch runs watch until its first version is loaded. With g, a
// start that hears nothing from the API server for wait serves g's copy
// instead and leaves the watch running: its first version replaces the
// copy when it comes. Without a usable copy it waits for the API server,
// as without g.
func startWatch(ctx context.Context, watch *apiserver.IPPoolWatch, g *lastGood, a *agent.Agent, wait time.Duration, log logr.Logger) error {
	if g == nil {
		return watch.Run(ctx)
	}
	first := make(chan error, 1)
	go func() { first <- watch.Run(ctx) }()
	select {
	case err := <-first:
		return err
	case <-time.After(wait):
	}
	if err := g.serveCopy(a); err != nil {
		log.Error(err, "the API server has not answered and no last-good copy can be served: waiting for the API server")
		return <-first
	}
	go func() {
		// The informer keeps watching whatever Run returned: a pool
		// created or fixed later is still loaded.
		if err := <-first; err != nil && ctx.Err() == nil {
			log.Error(err, "watching the IPPool; the last-good copy is still served")
		}
	}()
	return nil
}
