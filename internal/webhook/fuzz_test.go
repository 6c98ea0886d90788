package webhook

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FuzzHandler feeds arbitrary bodies to the webhook's HTTP handler (what any client of the server
// can send). It must never panic, always answer with an AdmissionReview, and never allow a request
// it could not read (a response with an empty uid is never allowed).
func FuzzHandler(f *testing.F) {
	req := request(f, admissionv1.Create, testShoot{providerConfig: `{"overlay":{"enabled":true}}`}, nil)
	valid, err := json.Marshal(admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Request: &req.AdmissionRequest})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Add([]byte(""))
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`))
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","kind":{"group":"core.gardener.cloud","kind":"Shoot"},"operation":"CREATE","object":{"a":1}}}`))
	h := NewHandler(logr.Discard())
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, Path, strings.NewReader(string(body))))
		var review admissionv1.AdmissionReview
		if err := json.Unmarshal(rec.Body.Bytes(), &review); err != nil || review.Response == nil {
			t.Fatalf("HTTP %d, not an AdmissionReview: %v: %s", rec.Code, err, rec.Body.String())
		}
		if review.Response.Allowed && review.Response.UID == "" {
			t.Fatalf("allowed a request without uid: %s", rec.Body.String())
		}
	})
}
