// Command demo is what `make demo` runs: calico-pilot's extension controller end to end on a local
// control plane (see internal/demo).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/calico-pilot/calico-pilot/internal/demo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// controller-runtime's process-wide logger; the demo prints a summary instead of logs.
	ctrl.SetLogger(logr.Discard())
	opts := demo.DefaultOptions(os.Stdout)
	err := demo.Run(ctx, opts)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "demo: %v\n", err)
		os.Exit(1)
	}
}
