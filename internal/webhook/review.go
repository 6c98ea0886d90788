package webhook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// MaxRequestBytes is the largest AdmissionReview the webhook reads (controller-runtime's limit,
// 7 MiB; the API server sends at most about 3 MiB objects, old and new).
const MaxRequestBytes = 7 << 20

// reviewHeader is what must be known of a request before it is decided.
type reviewHeader struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Request    *struct {
		UID types.UID `json:"uid"`
	} `json:"request"`
}

// NewHandler serves the Shoot validator over HTTP. A body that is not an AdmissionReview with a
// request and a uid is answered with HTTP 400 and a denied response that says what is missing and
// carries the apiVersion, kind and uid as far as they are known; it is logged as one line at
// verbosity 1 (no stack trace), since any client can send one. A well-formed review is decided by
// the ShootValidator (NewWebhook's handler) and answered with the request's apiVersion and uid.
func NewHandler(log logr.Logger) http.Handler { return NewHandlerFor(log, ShootValidator{}) }

// NewHandlerFor is NewHandler deciding with validator v.
func NewHandlerFor(log logr.Logger, v ShootValidator) http.Handler {
	wh := NewWebhookFor(v)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		if r.Body != nil {
			var err error
			body, err = io.ReadAll(io.LimitReader(r.Body, MaxRequestBytes+1))
			_ = r.Body.Close()
			if err != nil {
				badRequest(w, log, reviewHeader{}, http.StatusBadRequest, fmt.Sprintf("reading the request body: %v", err))
				return
			}
		}
		var h reviewHeader
		switch {
		case len(body) > MaxRequestBytes:
			badRequest(w, log, h, http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is larger than %d bytes", MaxRequestBytes))
			return
		case len(bytes.TrimSpace(body)) == 0:
			badRequest(w, log, h, http.StatusBadRequest, "the request body is empty; want an admission.k8s.io/v1 AdmissionReview")
			return
		}
		if err := json.Unmarshal(body, &h); err != nil {
			badRequest(w, log, reviewHeader{}, http.StatusBadRequest, fmt.Sprintf("the request body is not an AdmissionReview: %v", err))
			return
		}
		switch {
		case h.Kind != "AdmissionReview" || (h.APIVersion != admissionv1.SchemeGroupVersion.String() && h.APIVersion != "admission.k8s.io/v1beta1"):
			badRequest(w, log, h, http.StatusBadRequest, fmt.Sprintf("apiVersion %q, kind %q: want an admission.k8s.io/v1 AdmissionReview", h.APIVersion, h.Kind))
			return
		case h.Request == nil:
			badRequest(w, log, h, http.StatusBadRequest, "the AdmissionReview has no request")
			return
		case h.Request.UID == "":
			badRequest(w, log, h, http.StatusBadRequest, "request.uid is empty: the API server sets it, and the response must repeat it")
			return
		}
		review := admissionv1.AdmissionReview{}
		if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
			badRequest(w, log, h, http.StatusBadRequest, fmt.Sprintf("the AdmissionReview does not decode: %v", err))
			return
		}
		resp := wh.Handle(r.Context(), admission.Request{AdmissionRequest: *review.Request})
		resp.UID = review.Request.UID
		writeReview(w, h.APIVersion, http.StatusOK, &resp.AdmissionResponse)
	})
}

// writeReview writes an AdmissionReview of apiVersion (the request's) with the response.
func writeReview(w http.ResponseWriter, apiVersion string, code int, resp *admissionv1.AdmissionResponse) {
	if apiVersion != "admission.k8s.io/v1beta1" {
		apiVersion = admissionv1.SchemeGroupVersion.String()
	}
	review := admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: apiVersion, Kind: "AdmissionReview"}, Response: resp}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(review) // the client may have gone; nothing else to do
}

// badRequest answers a malformed request: an AdmissionReview whose response is denied with the
// HTTP status code and message, repeating the apiVersion and uid when the request had them.
func badRequest(w http.ResponseWriter, log logr.Logger, h reviewHeader, code int32, msg string) {
	log.V(1).Info("Malformed admission request", "apiVersion", h.APIVersion, "kind", h.Kind, "code", code, "reason", msg)
	resp := &admissionv1.AdmissionResponse{
		Allowed: false,
		Result:  &metav1.Status{Status: metav1.StatusFailure, Code: code, Reason: metav1.StatusReasonBadRequest, Message: msg},
	}
	if h.Request != nil {
		resp.UID = h.Request.UID
	}
	writeReview(w, h.APIVersion, int(code), resp)
}
