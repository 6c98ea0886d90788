// Package rendertest holds the render scenarios the tests share: internal/render's golden and
// decision-delta tests, the Calico oracle's start-up check and the integration test that applies
// every scenario to a real API server. Only tests import it.
package rendertest
