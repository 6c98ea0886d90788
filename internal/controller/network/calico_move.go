package network

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
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
	// moveDone: Complete rolled out; the shoot is on the target release.
	moveDone
)

// checkMove reads, through the shoot client, every workload the applied step of a move changed
// (calicoversion.Move.Changed, of the components the manifest runs: workloads, component -> the image
// of its main container) and says whether that step rolled out: each workload runs the image rendered
// for the step (the shoot's resource manager applied it) and reports every pod updated and available.
// It returns what holds the move ("" when nothing does). One request for the access secret and one GET
// per workload, sent only while the shoot moves.
func (a *Actuator) checkMove(ctx context.Context, namespace string, d calicoversion.Decision, workloads map[calicoversion.Component]string) (moveStep, string, error) {
	shoot, err := a.ShootClient(ctx, namespace)
	if err != nil {
		return moveWait, "", fmt.Errorf("reading the shoot's Calico rollout: %w", err)
	}
	var holding []string
	for _, c := range d.Move.Changed(d.Phase) {
		image, rendered := workloads[c]
		if !rendered {
			continue
		}
		w, err := rollout.ReadWorkload(ctx, shoot, c)
		if err != nil {
			return moveWait, "", err
		}
		switch {
		case !w.Complete():
			holding = append(holding, w.String())
		case !w.RunsImage(string(c), image):
			holding = append(holding, fmt.Sprintf("%s does not run %s yet", w.Name, image))
		}
	}
	switch {
	case len(holding) > 0:
		return moveWait, strings.Join(holding, "; "), nil
	case d.Phase == calicoversion.PhaseFirst && len(d.Move.Steps) > 1:
		return moveNext, "", nil
	}
	return moveDone, "", nil
}

// recordLine writes the decision into the provider status: the release moved from (or run), the
// newest CRDs applied, the move in progress.
func recordLine(st *calicov1alpha1.NetworkStatus, d calicoversion.Decision) {
	st.CalicoVersion = d.Current.Name()
	st.CalicoCRDVersion = d.Deployment().CRDs.Name()
	st.CalicoMove = nil
	if d.Moving() {
		st.CalicoMove = &calicov1alpha1.CalicoMove{From: d.Current.Name(), To: d.Move.To.Name(), Phase: string(d.Phase),
			Started: metav1.NewTime(d.Started), Rollout: d.Rollout}
	}
}

// advanceMove advances a move whose applied step rolled out. It returns the decision to render next
// (changed: render again) and logs the step; holding says what the move waits for.
func advanceMove(log logr.Logger, d calicoversion.Decision, step moveStep, holding string) (calicoversion.Decision, bool) {
	to := d.Move.To
	switch step {
	case moveNext:
		first := d.Move.Describe(calicoversion.PhaseFirst)
		d.Phase = calicoversion.PhaseComplete
		d.Message = fmt.Sprintf("Moving from Calico %s to %s (phase Complete): %s rolled out, the other components follow.", d.Current, to, first)
		log.Info("Calico move: first step rolled out", "from", d.Current.Name(), "to", to.Name())
		return d, true
	case moveDone:
		log.Info("Calico move completed", "from", d.Current.Name(), "to", to.Name())
		d.Current, d.Move, d.Phase, d.Rollout = to, calicoversion.Move{}, "", ""
		d.Status, d.Reason = calicoversion.ConditionTrue, "Deployed"
		d.Message = fmt.Sprintf("Calico %s runs on every component.", to)
		return d, false
	}
	if holding != "" {
		d.Message += " Waiting for " + holding + "."
	}
	return d, false
}

// stepMove checks the shoot and advances the move; next is true when the step changed what is
// rendered (First -> Complete).
func (a *Actuator) stepMove(ctx context.Context, log logr.Logger, namespace string, d calicoversion.Decision, workloads map[calicoversion.Component]string) (calicoversion.Decision, bool) {
	step, holding, err := a.checkMove(ctx, namespace, d, workloads)
	if err != nil {
		// The shoot cannot be read: the step applied stays, and the move is retried.
		log.Info("Cannot read the shoot's Calico rollout; the move waits", "error", err.Error())
		d.Message += " Waiting: " + err.Error()
		return d, false
	}
	return advanceMove(log, d, step, holding)
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
