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

// Malformed requests are answered 400 with a denied response that says what is wrong and repeats
// what is known of the request (issue 15: an empty body or a review without request was allowed
// with uid "").
func TestHandlerMalformedRequests(t *testing.T) {
	tests := []struct {
		name, body          string
		wantCode            int
		wantAPIVersion      string
		wantUID, wantSubstr string
	}{
		{name: "empty body", body: "", wantCode: 400, wantAPIVersion: "admission.k8s.io/v1", wantSubstr: "the request body is empty"},
		{name: "not JSON", body: "{", wantCode: 400, wantAPIVersion: "admission.k8s.io/v1", wantSubstr: "not an AdmissionReview"},
		{name: "no request", body: `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`, wantCode: 400,
			wantAPIVersion: "admission.k8s.io/v1", wantSubstr: "the AdmissionReview has no request"},
		{name: "empty object", body: `{}`, wantCode: 400, wantAPIVersion: "admission.k8s.io/v1", wantSubstr: `apiVersion "", kind ""`},
		{name: "no uid", body: `{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{}}`, wantCode: 400,
			wantAPIVersion: "admission.k8s.io/v1beta1", wantSubstr: "request.uid is empty"},
		{name: "undecodable request keeps the uid", body: `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1","operation":7}}`,
			wantCode: 400, wantAPIVersion: "admission.k8s.io/v1", wantUID: "u-1", wantSubstr: "does not decode"},
	}
	h := NewHandler(logr.Discard())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, Path, strings.NewReader(tt.body)))
			var review admissionv1.AdmissionReview
			if err := json.Unmarshal(rec.Body.Bytes(), &review); err != nil {
				t.Fatalf("response is not an AdmissionReview: %v: %s", err, rec.Body.String())
			}
			r := review.Response
			if rec.Code != tt.wantCode || review.APIVersion != tt.wantAPIVersion || review.Kind != "AdmissionReview" || r == nil ||
				r.Allowed || string(r.UID) != tt.wantUID || r.Result == nil || int(r.Result.Code) != tt.wantCode ||
				!strings.Contains(r.Result.Message, tt.wantSubstr) {
				t.Fatalf("HTTP %d %s; want %d, %s, uid %q, denied with %q", rec.Code, rec.Body.String(), tt.wantCode, tt.wantAPIVersion, tt.wantUID, tt.wantSubstr)
			}
		})
	}
}

// A well-formed review is decided and answered with its uid and apiVersion.
func TestHandlerDecides(t *testing.T) {
	req := request(t, admissionv1.Create, testShoot{providerConfig: `{"overlay":{"enabled":true,"mode":"x"}}`}, nil)
	body, err := json.Marshal(admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Request: &req.AdmissionRequest})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	NewHandler(logr.Discard()).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, Path, strings.NewReader(string(body))))
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &review); err != nil || review.Response == nil {
		t.Fatalf("%v: %s", err, rec.Body.String())
	}
	if rec.Code != 200 || review.Response.UID != req.UID || review.Response.Allowed || review.Response.Result.Code != 422 {
		t.Fatalf("HTTP %d %s; want 200 with a 422 denial for uid %s", rec.Code, rec.Body.String(), req.UID)
	}
}
