package standalone

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/rollout"
)

// TestRolloutTimeoutDropsTheDeadlineNoise: a rollout timeout says what the last full read saw; a
// last read that failed only because the deadline came (client-go's rate limiter refusing to wait
// past it, or the context's deadline) is not news and is not said; another failure is said plainly.
// The errors are client-go's own, from a client of an address nobody listens on.
func TestRolloutTimeoutDropsTheDeadlineNoise(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := "http://" + l.Addr().String()
	_ = l.Close()
	// One request a minute: the second read waits for the rate limiter, which refuses to wait past the deadline.
	// A fixed mapper: discovery would spend the one request.
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(appsv1.SchemeGroupVersion.WithKind("DaemonSet"), meta.RESTScopeNamespace)
	mapper.Add(appsv1.SchemeGroupVersion.WithKind("Deployment"), meta.RESTScopeNamespace)
	c, err := client.New(&rest.Config{Host: host, QPS: 1.0 / 60, Burst: 1}, client.Options{Scheme: clientgoscheme.Scheme, Mapper: mapper})
	if err != nil {
		t.Fatal(err)
	}
	read := func(ctx context.Context) error {
		_, err := rollout.ReadWorkload(ctx, c, calicoversion.Node)
		return err
	}
	refused := read(context.Background())
	if refused == nil || !strings.Contains(refused.Error(), "connection refused") {
		t.Fatalf("first read: %v, want connection refused", refused)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	limited := read(ctx)
	if limited == nil || !strings.Contains(limited.Error(), "client rate limiter Wait returned an error") {
		t.Fatalf("second read: %v, want the rate limiter's refusal", limited)
	}
	expired, cancelExpired := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancelExpired()
	deadline := read(expired)
	if deadline == nil {
		t.Fatal("a read past its deadline succeeded")
	}

	a := &Applier{Client: c}
	holding := []rollout.Component{{Name: "calico-node", Found: true, Generation: 2, ObservedGeneration: 2, Desired: 3, Updated: 2, Available: 2, Unavailable: 1}}
	const head = "timed out after 30s waiting for the rollout of calico-node 2/3 updated, 2/3 available, 1 unavailable"
	const tail = ". What runs keeps running and the state records the step. Find why these pods do not become ready (kubectl -n kube-system describe pod ...), then run apply again to continue"
	for _, tc := range []struct {
		name    string
		readErr error
		want    string
	}{
		{"last read succeeded", nil, head + tail},
		{"rate limiter at the deadline", limited, head + tail},
		{"context deadline", deadline, head + tail},
		{"another failure", refused, head + " (the last read of the workloads failed: " + refused.Error() + ")" + tail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := a.rolloutTimedOut(context.Background(), 30*time.Second, "kube-system", holding, tc.readErr, calicoversion.Decision{})
			if err.Error() != tc.want {
				t.Errorf("got  %q\nwant %q", err, tc.want)
			}
		})
	}
}
