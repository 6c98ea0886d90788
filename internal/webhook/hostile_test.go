package webhook

import (
	"context"
	"net/http"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/calico-pilot/calico-pilot/internal/decode"
)

// A providerConfig with thousands of unknown fields is denied with at most decode.MaxErrors causes and
// one more counting the rest (issue 15: the response was one cause per field, built in quadratic time).
func TestShootValidatorCapsErrors(t *testing.T) {
	req := request(t, admissionv1.Create, testShoot{providerConfig: unknownFieldsConfig(1_000)}, nil)
	resp := ShootValidator{}.Handle(context.Background(), req)
	if resp.Allowed || resp.Result == nil || resp.Result.Details == nil {
		t.Fatalf("want a denial with causes, got %+v", resp.AdmissionResponse)
	}
	causes := resp.Result.Details.Causes
	if len(causes) != decode.MaxErrors+1 {
		t.Fatalf("got %d causes, want %d (the first %d and one counting the rest)", len(causes), decode.MaxErrors+1, decode.MaxErrors)
	}
	if c := causes[0]; c.Type != metav1.CauseTypeForbidden || c.Field != "spec.networking.providerConfig.unknownField000000" {
		t.Errorf("first cause = %+v, want the first unknown field", c)
	}
	last := causes[decode.MaxErrors]
	if last.Type != metav1.CauseTypeTooMany || last.Field != "spec.networking.providerConfig" ||
		last.Message != "Too many: 900: more errors not reported (the first 100 are)" {
		t.Errorf("last cause = %+v, want TooMany at spec.networking.providerConfig counting 900 more errors", last)
	}
	if n := len(resp.Result.Message); n > 64<<10 {
		t.Errorf("message is %d bytes; a capped denial should be far smaller", n)
	}
}

// A request whose context is done (the API server gave up waiting) gets no decision and no more work.
func TestShootValidatorCancelled(t *testing.T) {
	req := request(t, admissionv1.Create, testShoot{providerConfig: `{"overlay":{"enabled":true}}`}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	resp := ShootValidator{}.Handle(ctx, req)
	if resp.Allowed || resp.Result == nil || resp.Result.Code != http.StatusServiceUnavailable ||
		!strings.Contains(resp.Result.Message, "cancelled") {
		t.Fatalf("want a 503 saying the request was cancelled, got %+v", resp.AdmissionResponse)
	}
}
