package network

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/go-logr/logr"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/rollout"
)

// moveStep is what a reconcile of a moving shoot found in the shoot.
type moveStep int

const (
	// moveWait: the step applied has not rolled out yet.
	moveWait moveStep = iota
	// moveNext: the First step rolled out; apply Complete.
	moveNext
	// moveDone: Complete rolled out; the shoot is on the target line.
	moveDone
)

// checkMove reads, through the shoot client, the components the applied step of a move changed and
// says whether that step rolled out: the workload runs the images rendered for the step (the
// shoot's resource manager applied it) and reports every pod updated and available. First waits
// for the component that moves first (up: calico-node; down: Typha, or calico-node when Typha is
// off); Complete for calico-node and Typha. Three requests (the access secret, two GETs), sent
// only while the shoot moves.
func (a *Actuator) checkMove(ctx context.Context, namespace string, d lineDecision, manifest []byte) (moveStep, rollout.Components, error) {
	want, err := renderedImages(manifest)
	if err != nil {
		return moveWait, rollout.Components{}, err
	}
	shoot, err := a.ShootClient(ctx, namespace)
	if err != nil {
		return moveWait, rollout.Components{}, fmt.Errorf("reading the shoot's Calico rollout: %w", err)
	}
	comps, err := rollout.ReadComponents(ctx, shoot)
	if err != nil {
		return moveWait, comps, err
	}
	done := func(c rollout.Component) bool { return c.Complete() && c.RunsImages(want[c.Name]) }
	_, typha := want[rollout.TyphaDeployment]
	if calicoversion.Phase(d.Move.Phase) == calicoversion.PhaseFirst {
		first := comps.Node
		if calicoversion.MustParse(d.Move.To).Compare(d.Current) < 0 && typha {
			first = comps.Typha
		}
		if done(first) {
			return moveNext, comps, nil
		}
		return moveWait, comps, nil
	}
	if done(comps.Node) && (!typha || done(comps.Typha)) {
		return moveDone, comps, nil
	}
	return moveWait, comps, nil
}

// renderedImages returns the images (container name -> image) of calico-node and Typha in a
// rendered manifest stream, by workload name; Typha is absent when it is off.
func renderedImages(manifest []byte) (map[string]map[string]string, error) {
	type container struct {
		Name  string `json:"name"`
		Image string `json:"image"`
	}
	var obj struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			Template struct {
				Spec struct {
					InitContainers []container `json:"initContainers"`
					Containers     []container `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	out := map[string]map[string]string{}
	for _, line := range bytes.Split(manifest, []byte("\n")) {
		if !bytes.Contains(line, []byte(`"kind":"DaemonSet"`)) && !bytes.Contains(line, []byte(`"kind":"Deployment"`)) {
			continue
		}
		obj.Spec.Template.Spec.InitContainers, obj.Spec.Template.Spec.Containers = nil, nil
		if err := json.Unmarshal(line, &obj); err != nil {
			return nil, fmt.Errorf("reading the rendered workloads: %w", err)
		}
		if !(obj.Kind == "DaemonSet" && obj.Metadata.Name == rollout.NodeDaemonSet) && !(obj.Kind == "Deployment" && obj.Metadata.Name == rollout.TyphaDeployment) {
			continue
		}
		images := map[string]string{}
		for _, c := range append(obj.Spec.Template.Spec.InitContainers, obj.Spec.Template.Spec.Containers...) {
			images[c.Name] = c.Image
		}
		out[obj.Metadata.Name] = images
	}
	return out, nil
}

// recordLine writes the decision into the provider status: the line moved from (or run), the
// newest CRDs applied, the move in progress.
func recordLine(st *calicov1alpha1.NetworkStatus, d lineDecision) {
	st.CalicoVersion = d.Current.Release
	st.CalicoCRDVersion = d.Deployment().CRDs.Release
	st.CalicoMove = d.Move
}

// advanceMove advances a move whose applied step rolled out. It returns the decision to render next
// (changed: render again) and logs the step.
func advanceMove(log logr.Logger, d lineDecision, step moveStep, comps rollout.Components) (lineDecision, bool) {
	to := calicoversion.MustParse(d.Move.To)
	switch step {
	case moveNext:
		d.Move = d.Move.DeepCopy()
		d.Move.Phase = string(calicoversion.PhaseComplete)
		d.Message = fmt.Sprintf("Moving from Calico %s to %s (phase Complete): %s rolled out, the other components follow.", d.Current.Release, to.Release, firstMover(d.Current, to))
		log.Info("Calico move: first step rolled out", "from", d.Current.Release, "to", to.Release)
		return d, true
	case moveDone:
		log.Info("Calico move completed", "from", d.Current.Release, "to", to.Release)
		d.Current, d.Move = to, nil
		d.Status, d.Reason = gardencorev1beta1.ConditionTrue, "Deployed"
		d.Message = fmt.Sprintf("Calico %s runs on every component.", to.Release)
		return d, false
	}
	if s := comps.String(); s != "" {
		d.Message += " Waiting for " + s + "."
	}
	return d, false
}

// stepMove checks the shoot and advances the move; next is true when the step changed what is
// rendered (First -> Complete).
func (a *Actuator) stepMove(ctx context.Context, log logr.Logger, namespace string, d lineDecision, manifest []byte) (lineDecision, bool, error) {
	step, comps, err := a.checkMove(ctx, namespace, d, manifest)
	if err != nil {
		// The shoot cannot be read: the step applied stays, and the move is retried.
		log.Info("Cannot read the shoot's Calico rollout; the move waits", "error", err.Error())
		d.Message += " Waiting: " + err.Error()
		return d, false, nil
	}
	d, next := advanceMove(log, d, step, comps)
	return d, next, nil
}

// assignment asks the rollout view about the shoot of namespace.
func (a *Actuator) assignment(namespace string) *rollout.Assignment {
	if a.Rollout == nil {
		return nil
	}
	if as, ok := a.Rollout.Assignment(namespace); ok {
		return &as
	}
	return nil
}
