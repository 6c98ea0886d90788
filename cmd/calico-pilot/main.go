// Command calico-pilot deploys and lifecycle-manages Calico networking: the Gardener networking
// extension's controller and admission webhook, and the offline render, validate and bump tools.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/calico-pilot/calico-pilot/internal/cmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cmd.Execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
