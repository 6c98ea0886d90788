package webhook

import (
	"errors"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// The webhook's request metrics, under the names controller-runtime's webhook server exports
// (dashboards and alerts use them). When controller-runtime's webhook package registered them
// already, its collectors are used.
var (
	requestLatency = register(prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "controller_runtime_webhook_latency_seconds",
		Help:    "Histogram of the latency of processing admission requests",
		Buckets: prometheus.ExponentialBuckets(10e-9, 10, 12),
	}, []string{"webhook"}))
	requestTotal = register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "controller_runtime_webhook_requests_total",
		Help: "Total number of admission requests by HTTP status code.",
	}, []string{"webhook", "code"}))
	requestInFlight = register(prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "controller_runtime_webhook_requests_in_flight",
		Help: "Current number of admission requests being served.",
	}, []string{"webhook"}))
)

// register registers c in controller-runtime's registry, or returns the collector of the same
// name registered before.
func register[C prometheus.Collector](c C) C {
	if err := metrics.Registry.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
	}
	return c
}

// instrumented counts, times and gauges the requests of h at path.
func instrumented(path string, h http.Handler) http.Handler {
	lbl := prometheus.Labels{"webhook": path}
	cnt := requestTotal.MustCurryWith(lbl)
	cnt.WithLabelValues("200")
	cnt.WithLabelValues("500")
	return promhttp.InstrumentHandlerDuration(requestLatency.MustCurryWith(lbl),
		promhttp.InstrumentHandlerCounter(cnt, promhttp.InstrumentHandlerInFlight(requestInFlight.With(lbl), h)))
}
