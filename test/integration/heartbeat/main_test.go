package heartbeat

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"

	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/cmd"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

var (
	cp *testenv.ControlPlane
	cl client.Client
)

// controllerArgsEnv, when set, makes the test binary run `calico-pilot` with these arguments (JSON list)
// instead of the tests: each controller start is its own process, as in a pod (controller-runtime allows
// a controller name once per process).
const controllerArgsEnv = "HEARTBEAT_TEST_CALICO_PILOT_ARGS"

func TestMain(m *testing.M) {
	if args := os.Getenv(controllerArgsEnv); args != "" {
		var list []string
		if err := json.Unmarshal([]byte(args), &list); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		code := cmd.Execute(ctx, list, os.Stdin, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	// The Gardener CRDs let the whole controller start (its Network controller watches them).
	opts := testenv.Options{CRDDirectoryPaths: testenv.CRDDirectories(testenv.GardenerCRDs, testenv.MonitoringCRDs)}
	os.Exit(testenv.RunSuite(m, opts, func(c *testenv.ControlPlane) error {
		cp = c
		var err error
		cl, err = c.NewClient(clientgoscheme.AddToScheme)
		return err
	}))
}
