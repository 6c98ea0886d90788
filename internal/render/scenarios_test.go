package render_test

import (
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
)

// The scenarios live in rendertest, so that the Calico oracle's tests and the integration tests
// render the same ones.
type scenario = rendertest.Scenario

var (
	scenarios = rendertest.Scenarios()
	// everyRelease is every scenario at every release of the catalogue (rendertest.AtEveryRelease):
	// the properties every render must have loop over it.
	everyRelease = rendertest.AtEveryRelease()
	shootOf      = rendertest.ShootOf
	resolve      = rendertest.Resolve

	ipv6Only     = rendertest.IPv6Only
	kubeProxyOff = rendertest.KubeProxyOff
	noVPA        = rendertest.NoVPA
)
