package webhook

import (
	"context"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/decode"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/rules"
)

// shootGroupKind is what this webhook validates.
var shootGroupKind = schema.GroupKind{Group: gardencorev1beta1.GroupName, Kind: "Shoot"}

// ShootValidator is the admission.Handler for Shoots. It holds no state that changes; one value
// serves every request.
type ShootValidator struct {
	// Availability says which Calico releases the landscape's image vector makes available for a
	// shoot of a Kubernetes version (imagevector.Resolver.Availability); nil: every release. A new or
	// changed pin to a release that is not available is refused with the image entry to add.
	Availability func(kubernetes string) calicoversion.Available
}

// NewWebhook returns the validating webhook for Shoots, to be registered at Path on a webhook server.
func NewWebhook() *admission.Webhook { return NewWebhookFor(ShootValidator{}) }

// NewWebhookFor is NewWebhook with validator v.
func NewWebhookFor(v ShootValidator) *admission.Webhook {
	return &admission.Webhook{Handler: v}
}

// available is the releases the image vector makes available for shoot (nil: every release).
func (v ShootValidator) available(shoot *gardencorev1beta1.Shoot) calicoversion.Available {
	if v.Availability == nil {
		return nil
	}
	return v.Availability(shoot.Spec.Kubernetes.Version)
}

// Handle decides one admission request for a Shoot: allowed (possibly with warnings), or denied with a
// 422 Invalid status whose causes carry the field paths.
func (v ShootValidator) Handle(ctx context.Context, req admission.Request) admission.Response {
	log := logf.FromContext(ctx).WithValues("shoot", req.Namespace+"/"+req.Name, "operation", req.Operation)
	if reason, skip := notValidated(req); skip {
		return admission.Allowed(reason)
	}
	// Every step below is linear in the size of the request; between steps, a request whose client
	// has gone (the API server's webhook timeout) stops here instead of finishing for nobody.
	if resp, done := cancelled(ctx); done {
		return resp
	}
	shoot, resp, done := calicoShoot(req)
	if done {
		return resp
	}
	if resp, done := cancelled(ctx); done {
		return resp
	}
	// The same steps as `calico-pilot validate` on a Shoot: spec.networking, the strictly decoded
	// providerConfig (decoded once), every rule. cfg is nil when there is none or it does not decode;
	// next to errors that ratcheting drops, it is the config the update is judged with.
	cfg, errs := pipeline.ShootConfig(shoot)
	var warnings []string
	if req.Operation == admissionv1.Update {
		var resp *admission.Response
		if errs, warnings, resp = v.updateChecks(ctx, req, shoot, cfg, errs); resp != nil {
			return *resp
		}
	}
	if len(errs) > 0 {
		log.V(1).Info("Denied Shoot", "errors", len(errs))
		return denied(req.Name, errs)
	}
	if req.Operation == admissionv1.Create {
		if errs = rules.CalicoVersionAvailable(cfg, v.available(shoot), decode.ProviderConfigPath()); len(errs) > 0 {
			return denied(req.Name, errs)
		}
		warnings = append(warnings, createWarnings(cfg, decode.ProviderConfigPath())...)
	}
	if len(warnings) > 0 {
		log.V(1).Info("Allowed Shoot with warnings", "warnings", len(warnings))
	}
	return admission.Allowed("").WithWarnings(warnings...)
}

// notValidated says why a request is allowed without looking at it: it is not for a Shoot, or
// neither a create nor an update.
func notValidated(req admission.Request) (string, bool) {
	if req.Kind.Group != shootGroupKind.Group || req.Kind.Kind != shootGroupKind.Kind {
		return "not a Shoot", true
	}
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return "only create and update are validated", true
	}
	return "", false
}

// calicoShoot decodes the request's Shoot. When the request is decided here (the Shoot does not
// decode, is not a calico shoot or is workerless) it returns the response and done.
func calicoShoot(req admission.Request) (*gardencorev1beta1.Shoot, admission.Response, bool) {
	shoot, errs := decode.Shoot(req.Object.Raw)
	if len(errs) > 0 {
		return nil, denied(req.Name, errs), true
	}
	if !isCalico(shoot) {
		return nil, admission.Allowed("networking type is not " + calicov1alpha1.NetworkType), true
	}
	if rules.NetworkingOf(shoot) == rules.NetworkingWorkerless {
		// Workerless shoots get no Network object, so there is no Calico to configure.
		return nil, admission.Allowed("workerless shoot"), true
	}
	return shoot, admission.Response{}, false
}

// updateChecks judges an update beyond the new Shoot's own errs: it ratchets them against the
// stored Shoot and, when none is left, checks the transition from the stored Shoot. It returns the
// remaining errors and the warnings, or the response when the request ends here (cancelled, or an
// error checking the transition).
func (v ShootValidator) updateChecks(ctx context.Context, req admission.Request, shoot *gardencorev1beta1.Shoot, cfg *calicov1alpha1.NetworkConfig, errs field.ErrorList) (field.ErrorList, []string, *admission.Response) {
	var warnings []string
	if len(errs) > 0 {
		// Ratcheting: a value that breaks a rule beyond the reference extension is refused only
		// when it is new; one the stored Shoot already has is kept, with a warning.
		errs, warnings = ratchet(req, errs)
	}
	if len(errs) > 0 {
		return errs, warnings, nil
	}
	if resp, done := cancelled(ctx); done {
		return nil, nil, &resp
	}
	transitionErrs, transitionWarnings, err := v.checkTransition(req, shoot, cfg)
	if err != nil {
		resp := admission.Errored(http.StatusBadRequest, err)
		return nil, nil, &resp
	}
	return append(errs, transitionErrs...), append(warnings, transitionWarnings...), nil
}

// checkTransition compares the old Shoot with the valid new one. An old Shoot that was not a calico shoot
// has nothing to compare against; one that no longer decodes or cannot be derived is not compared either,
// and a warning says so. In both cases the update is judged on the new Shoot alone.
func (v ShootValidator) checkTransition(req admission.Request, shoot *gardencorev1beta1.Shoot, cfg *calicov1alpha1.NetworkConfig) (field.ErrorList, []string, error) {
	old, errs := decode.Shoot(req.OldObject.Raw)
	if len(errs) > 0 {
		return nil, []string{"the stored Shoot does not decode (" + errs.ToAggregate().Error() + "), so changes against it were not checked"}, nil
	}
	if !isCalico(old) {
		return nil, nil, nil
	}
	oldCfg, errs := decode.ShootNetworkConfig(old)
	if len(errs) > 0 {
		return nil, []string{decode.ProviderConfigPath().String() + ": the stored providerConfig does not decode " +
			"(" + errs.ToAggregate().Error() + "), so changes against it were not checked"}, nil
	}
	pinErrs, pinWarnings := pinChange(oldCfg, cfg, decode.ProviderConfigPath())
	if pinOf(oldCfg) != pinOf(cfg) {
		// A new or changed pin needs the landscape's images of its release; an unchanged one is
		// not judged again (the controller keeps the shoot where it is and says why).
		pinErrs = append(pinErrs, rules.CalicoVersionAvailable(cfg, v.available(shoot), decode.ProviderConfigPath())...)
	}
	netErrs, netWarnings := networkingTransition(old, oldCfg, shoot, cfg)
	return append(pinErrs, netErrs...), append(pinWarnings, netWarnings...), nil
}

// networkingTransition compares the resolved networking of the stored and the new Shoot (Transition).
func networkingTransition(old *gardencorev1beta1.Shoot, oldCfg *calicov1alpha1.NetworkConfig, shoot *gardencorev1beta1.Shoot, cfg *calicov1alpha1.NetworkConfig) (field.ErrorList, []string) {
	largest := maxNodes(shoot)
	before, errs := resolveNetworking(old, oldCfg)
	if len(errs) > 0 {
		return nil, []string{decode.ProviderConfigPath().String() + ": the stored Shoot's networking cannot be derived " +
			"(" + errs.ToAggregate().Error() + "), so changes against it were not checked"}
	}
	after, errs := resolveNetworking(shoot, cfg)
	if len(errs) > 0 {
		// Validation passed, so the facts the derivation needs are missing (e.g. an IPv6 pod network
		// that the infrastructure has not reported yet); the controller reports it when it reconciles.
		return nil, []string{decode.ProviderConfigPath().String() + ": the new networking cannot be derived yet " +
			"(" + errs.ToAggregate().Error() + "), so changes were not checked"}
	}
	cluster := Cluster{RunsNodes: runsNodes(old), MaxNodes: largest}
	return Transition(before, after, cluster, decode.ProviderConfigPath())
}

func isCalico(shoot *gardencorev1beta1.Shoot) bool {
	return shoot.NetworkingType() == calicov1alpha1.NetworkType
}

// cancelled answers a request whose context is done (the client went away or the server is shutting
// down): nobody waits for the decision, so no more work is done for it.
func cancelled(ctx context.Context) (admission.Response, bool) {
	if err := ctx.Err(); err != nil {
		return admission.Errored(http.StatusServiceUnavailable, fmt.Errorf("request cancelled before a decision: %w", err)), true
	}
	return admission.Response{}, false
}

// denied is a 422 Invalid response: the API server passes its message and causes (one per field error,
// with the field path) on to the client. At most decode.MaxErrors errors are listed; one last cause
// counts the rest.
func denied(name string, errs field.ErrorList) admission.Response {
	status := apierrors.NewInvalid(shootGroupKind, name, decode.Truncate(errs)).ErrStatus
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Allowed: false, Result: &status}}
}
