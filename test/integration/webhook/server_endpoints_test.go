package webhook_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading %s: %v", url, err)
	}
	return resp.StatusCode, string(body)
}

// TestAdmissionServerEndpoints checks what the chart's probes and the metrics Service rely on: /healthz
// and /readyz answer 200 once the webhook serves, and /metrics counts the webhook's requests by path.
func TestAdmissionServerEndpoints(t *testing.T) {
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, body := get(t, "http://"+healthAddr+path); code != http.StatusOK {
			t.Errorf("GET %s = %d %q, want 200", path, code, body)
		}
	}

	// One admission request through the API server, so the counter exists.
	c, _ := shootClient(t)
	if _, err := c.Create(context.Background(), shoot{name: "metrics"}.object(t), metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a shoot: %v", err)
	}
	want := `controller_runtime_webhook_requests_total{code="200",webhook="/webhooks/validate-shoot"}`
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		_, body := get(t, "http://"+metricsAddr+"/metrics")
		return strings.Contains(body, want), nil
	})
	if err != nil {
		_, body := get(t, "http://"+metricsAddr+"/metrics")
		t.Errorf("/metrics has no %s:\n%s", want, grepLines(body, "webhook"))
	}
}

func grepLines(text, substr string) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, substr) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
