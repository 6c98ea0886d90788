package swapcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/manifestdiff"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/plan"
	"github.com/calico-pilot/calico-pilot/internal/referencekeep"
	"github.com/calico-pilot/calico-pilot/internal/render"
	"github.com/calico-pilot/calico-pilot/internal/rules"
	"github.com/calico-pilot/calico-pilot/internal/seedstate"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// Verdict is the outcome for one shoot.
type Verdict string

// Verdicts.
const (
	// VerdictSafe: calico-pilot reconciles the shoot and changes nothing that restarts or disrupts it.
	VerdictSafe Verdict = "safe"
	// VerdictChanges: calico-pilot reconciles the shoot, but the data plane changes (pods restart,
	// or a change is deferred, disruptive or blocked).
	VerdictChanges Verdict = "changes"
	// VerdictFails: calico-pilot would not reconcile the shoot's config.
	VerdictFails Verdict = "fails"
)

// Report is the result for one shoot.
type Report struct {
	// Namespace is the control-plane namespace (seed mode); empty for a Shoot file.
	Namespace string `json:"namespace,omitempty"`
	// Shoot is the Shoot's namespace/name.
	Shoot string `json:"shoot,omitempty"`
	// Verdict is safe, changes or fails.
	Verdict Verdict `json:"verdict"`
	// Errors are why the config would not reconcile.
	Errors []string `json:"errors,omitempty"`
	// Compatibility is the mode calico-pilot would choose (Reference or Native).
	Compatibility calicov1alpha1.CompatibilityMode `json:"compatibility,omitempty"`
	// Findings are the contradictory and ignored fields, and what is deployed for each.
	Findings []rules.Finding `json:"findings,omitempty"`
	// Restarts are the calico-node and typha workloads whose pods the swap replaces.
	Restarts []string `json:"restarts,omitempty"`
	// TemplateFixes are the named differences of calico-node's and typha's pod templates from the
	// reference's that apply to this shoot (Reference mode): fixes the shoot needs, each a reason for
	// a restart in Restarts.
	TemplateFixes []render.TemplateDifference `json:"templateFixes,omitempty"`
	// CalicoRuns is the Calico release the shoot runs (the deployed manifest's images, a retired
	// release named as deployed); empty when nothing is deployed or the Shoot alone was checked.
	CalicoRuns string `json:"calicoRuns,omitempty"`
	// CalicoGets is the release calico-pilot would give it (plan.ChooseCalico, as the controller
	// decides: the recorded release, the pin, the operator's default, the catalogue's), or the one the
	// caller asked for.
	CalicoGets string `json:"calicoGets,omitempty"`
	// CalicoAvailable are the Calico releases the image vector makes available for the shoot's
	// Kubernetes version ("v3.31.6 (not v3.31.7, v3.32.1)"; imagevector.Availability); CalicoNew is
	// the release a new shoot of that version gets with it. Empty when every release is available or
	// the caller chose the release.
	CalicoAvailable string `json:"calicoAvailable,omitempty"`
	CalicoNew       string `json:"calicoNew,omitempty"`
	// CalicoRetired say which release the shoot runs or its Network records that this calico-pilot
	// does not carry, and what it moves to at its next reconcile (the newest release of its line).
	CalicoRetired []string `json:"calicoRetired,omitempty"`
	// Notes say what could not be checked.
	Notes []string `json:"notes,omitempty"`
	// Diff is the classified diff between the deployed and the new manifest; nil without a
	// deployed manifest.
	Diff *manifestdiff.Diff `json:"-"`
}

// Checker renders and compares.
type Checker struct {
	Encoder *pipeline.Encoder
	Parser  *manifestdiff.Parser
	// ControllerConfig is the operator configuration the controller would run with (nil: defaults):
	// its compatibility default, Calico default and rollout, GlobalNetworkSet default.
	ControllerConfig *configv1alpha1.ControllerConfiguration
	// Settings are the render settings (pipeline.OperatorSettings of ControllerConfig and the feature
	// gates); a zero Settings.Calico means each shoot gets the line calico-pilot would give it
	// (plan.ChooseCalico), with its images from Resolver.
	Settings values.Settings
	// Resolver resolves the images of a shoot's Kubernetes version and Calico line; nil keeps
	// Settings.Images for every shoot.
	Resolver *imagevector.Resolver
	// DataKey is the ManagedResource secret key calico-pilot writes (config.yaml).
	DataKey string
}

// calico fills in the Calico deployment of a shoot, unless the caller chose one: the line calico-pilot
// would give it, with that line's images.
func (c *Checker) calico(r *Report, settings *values.Settings, cfg *calicov1alpha1.NetworkConfig, network *extensionsv1alpha1.Network, kubernetes string) error {
	if settings.Calico.IsZero() {
		var avail calicoversion.Available
		if c.Resolver != nil {
			a := c.Resolver.Availability(kubernetes)
			avail = a.Func()
			if len(a.Missing()) > 0 {
				// Said only when the image vector lacks a release (a mirrored landscape), with what a
				// shoot created after the swap gets: the same decision without a record.
				r.CalicoAvailable = a.Summary()
				if fresh, err := plan.ChooseCalico("", cfg, c.ControllerConfig, nil, kubernetes, false, avail); err == nil {
					r.CalicoNew = fresh.Deployment.Node.Name()
				}
			}
		}
		choice, err := plan.ChooseCalico("", cfg, c.ControllerConfig, network, kubernetes, true, avail)
		if err != nil {
			return err
		}
		if d := choice.Decision; d.Reason == calicoversion.ReasonImagesUnavailable {
			// Kept where it is (or refused a move) for missing images: the entry to add.
			r.Notes = append(r.Notes, "calico: "+d.Message)
		}
		settings.Calico = choice.Deployment
		if d := choice.Decision.Retired; d != nil {
			addRetired(r, plan.RetiredNotes(*d))
		}
		if c.Resolver != nil {
			images, err := c.Resolver.ForShoot(kubernetes, choice.Deployment)
			if err != nil {
				return err
			}
			settings.Images = images
		}
	}
	r.CalicoGets = plan.DescribeLines(settings.Calico)
	return nil
}

// Seed checks one shoot of a seed.
func (c *Checker) Seed(s seedstate.Shoot) Report { return c.SeedParsed(s, nil) }

// SeedParsed is Seed for a caller that has parsed the deployed manifest already (nil: parse it).
func (c *Checker) SeedParsed(s seedstate.Shoot, deployed *manifestdiff.Set) Report {
	r := Report{Namespace: s.Namespace, Notes: append([]string(nil), s.Problems...)}
	if s.Shoot == nil {
		r.Verdict = VerdictFails
		r.Errors = append(r.Errors, "the Cluster's shoot is not available, so the Network cannot be rendered")
		return r
	}
	r.Shoot = s.Shoot.Namespace + "/" + s.Shoot.Name
	var raw []byte
	if s.Network.Status.ProviderStatus != nil {
		raw = s.Network.Status.ProviderStatus.Raw
	}
	mode, d, err := pipeline.Compatibility(raw, func() (bool, error) { return s.ManagedResource != nil, nil }, c.ControllerConfig)
	if err != nil {
		return failed(r, err.Error())
	}
	if d.StatusErr != nil {
		// As the controller: an unreadable status counts as someone else's.
		r.Notes = append(r.Notes, d.StatusErr.Error()+"; taken as someone else's (the controller ignores it)")
	}
	r.Compatibility = mode

	// Decoded as the controller does: rules beyond the reference are findings, not errors.
	cfg, errs := pipeline.ExistingNetworkConfig(s.Network)
	if len(errs) > 0 {
		return failed(r, errs.ToAggregate().Error())
	}
	settings := c.Settings
	settings.Ratchet, settings.Compatibility = true, r.Compatibility
	if r.Compatibility == calicov1alpha1.CompatibilityReference {
		// As the controller: what it took over already, or takes over from the deployed manifest.
		if d.Previous != nil {
			settings.TakenOver = d.Previous.TakenOver
		} else if s.Deployed != nil {
			t, err := referencekeep.FromDeployed(s.Deployed)
			if err != nil {
				r.Notes = append(r.Notes, err.Error()+"; calico-node's checksum and helper scripts would be calico-pilot's")
			}
			settings.TakenOver = t
		}
	}
	if err := c.calico(&r, &settings, cfg, s.Network, s.Shoot.Spec.Kubernetes.Version); err != nil {
		return failed(r, err.Error())
	}
	src := pipeline.Source{Shoot: s.Shoot, Network: s.Network}
	c.globalNetworkSet(&r, cfg)
	res, ferrs, err := c.Encoder.Render(src, cfg, settings)
	switch {
	case err != nil:
		return failed(r, err.Error())
	case len(ferrs) > 0:
		return failed(r, ferrs.ToAggregate().Error())
	}
	r.Findings = res.Options.Findings
	r.TemplateFixes = render.ApplicableTemplateDifferences(&res.Options)
	if s.Deployed == nil {
		r.Notes = append(r.Notes, "no ManagedResource deployed yet: nothing to compare, the first reconcile creates everything")
		r.Verdict = VerdictSafe
		return r
	}
	if err := c.compare(&r, s.Deployed, deployed, map[string][]byte{c.DataKey: res.Manifest.JSON()}); err != nil {
		return failed(r, err.Error())
	}
	return r
}

// globalNetworkSet: the kube-apiserver addresses come from DNSRecords the controller resolves; the
// check takes them from the deployed set, or leaves the set out and says so.
func (c *Checker) globalNetworkSet(r *Report, cfg *calicov1alpha1.NetworkConfig) {
	if !pipeline.GlobalNetworkSetEnabled(cfg, c.ControllerConfig) {
		return
	}
	r.Notes = append(r.Notes, "the gardener-kube-apiserver GlobalNetworkSet is enabled: its addresses come from DNSRecords at reconcile time; it is left out of this comparison")
	off := false
	cfg.KubeAPIServerGlobalNetworkSet = &calicov1alpha1.KubeAPIServerGlobalNetworkSet{Enabled: &off}
}

// compare diffs the deployed data (old: parsed already, or nil) against the new data and sets the
// verdict and restarts.
func (c *Checker) compare(r *Report, deployed map[string][]byte, old *manifestdiff.Set, next map[string][]byte) error {
	if old == nil {
		var err error
		if old, err = c.Parser.ManagedResourceData(deployed); err != nil {
			return fmt.Errorf("reading the deployed manifest: %w", err)
		}
	}
	now, err := c.Parser.ManagedResourceData(next)
	if err != nil {
		return fmt.Errorf("reading the new manifest: %w", err)
	}
	run := plan.Read(old)
	r.CalicoRuns = run.Describe()
	addRetired(r, plan.RetiredNotes(run.Retired...))
	d := manifestdiff.Compare(old, now)
	manifestdiff.DefaultClassifier().Classify(d)
	r.Diff = d
	sum := d.Summarize()
	for _, w := range sum.Restarts {
		if strings.HasSuffix(w, "/calico-node") || strings.HasSuffix(w, "/calico-typha-deploy") {
			r.Restarts = append(r.Restarts, w)
		}
	}
	r.Verdict = VerdictSafe
	if sum.Highest != "" && sum.Highest.Severity() > manifestdiff.ClassSafe.Severity() {
		r.Verdict = VerdictChanges
	}
	return nil
}

// Shoot checks a Shoot from the garden (a Shoot file): whether its config reconciles, and its
// findings, assuming the reference extension serves it now (compatibility Reference, unless the
// operator configuration honours ignored fields). Without the seed there is no deployed manifest
// to compare.
func (c *Checker) Shoot(shoot *gardencorev1beta1.Shoot) Report {
	r := Report{Shoot: shoot.Namespace + "/" + shoot.Name}
	r.Compatibility = pipeline.ChooseCompatibility(pipeline.Deployed{ByOther: true}, c.ControllerConfig)
	// The config comes back decoded next to the errors of rules beyond the reference, which the
	// reference accepted (ratcheted here as the controller does).
	cfg, errs := pipeline.ShootConfig(shoot)
	hard, _ := rules.Ratchet(errs)
	if len(hard) > 0 {
		return failed(r, hard.ToAggregate().Error())
	}
	if cfg == nil {
		cfg = &calicov1alpha1.NetworkConfig{}
	}
	settings := c.Settings
	settings.Ratchet, settings.Compatibility = true, r.Compatibility
	if err := c.calico(&r, &settings, cfg, nil, shoot.Spec.Kubernetes.Version); err != nil {
		return failed(r, err.Error())
	}
	c.globalNetworkSet(&r, cfg)
	opts, ferrs := pipeline.Options(pipeline.Source{Shoot: shoot}, cfg, settings)
	if len(ferrs) > 0 {
		return failed(r, ferrs.ToAggregate().Error())
	}
	r.Findings = opts.Findings
	r.Verdict = VerdictSafe
	// The named fixes of the pod templates roll calico-node whatever was deployed.
	if r.TemplateFixes = render.ApplicableTemplateDifferences(&opts); len(r.TemplateFixes) > 0 {
		r.Verdict = VerdictChanges
		r.Restarts = []string{"DaemonSet " + render.Namespace + "/" + render.NameCalicoNode}
	}
	r.Notes = append(r.Notes, "from the Shoot alone: the deployed manifest is in the seed, run swap-check --kubeconfig <seed> for the object-level diff")
	return r
}

// addRetired adds retirement notes, each once.
func addRetired(r *Report, notes []string) {
	for _, n := range notes {
		if !slices.Contains(r.CalicoRetired, n) {
			r.CalicoRetired = append(r.CalicoRetired, n)
		}
	}
}

func failed(r Report, msg string) Report {
	r.Verdict = VerdictFails
	r.Errors = append(r.Errors, msg)
	return r
}

// WriteText writes the reports for people.
func WriteText(w *bytes.Buffer, reports []Report) error {
	for i, r := range reports {
		if i > 0 {
			w.WriteString("\n")
		}
		name := r.Shoot
		if r.Namespace != "" {
			name = r.Namespace + " (shoot " + r.Shoot + ")"
		}
		fmt.Fprintf(w, "%s: %s\n", name, describe(r))
		if r.Compatibility != "" && r.Verdict != VerdictFails {
			fmt.Fprintf(w, "  compatibility: %s\n", r.Compatibility)
		}
		switch {
		case r.CalicoRuns != "" && r.CalicoGets != "":
			fmt.Fprintf(w, "  calico: runs %s, calico-pilot would give it %s\n", r.CalicoRuns, r.CalicoGets)
		case r.CalicoGets != "":
			fmt.Fprintf(w, "  calico: calico-pilot would give it %s\n", r.CalicoGets)
		}
		if r.CalicoAvailable != "" {
			fmt.Fprintf(w, "  images: the image vector has Calico %s for this Kubernetes version; a new shoot on it gets %s\n", r.CalicoAvailable, r.CalicoNew)
		}
		for _, n := range r.CalicoRetired {
			fmt.Fprintf(w, "  retired: %s\n", n)
		}
		for _, e := range r.Errors {
			fmt.Fprintf(w, "  error: %s\n", e)
		}
		for _, f := range r.Findings {
			fmt.Fprintf(w, "  %s: %s\n", strings.ToLower(string(f.Kind)), f.String())
		}
		if len(r.Restarts) > 0 {
			fmt.Fprintf(w, "  restarts: %s\n", strings.Join(r.Restarts, ", "))
		}
		for _, f := range r.TemplateFixes {
			fmt.Fprintf(w, "  fix %s: %s (%s)\n", f.ID, f.Where, f.Why)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
		if r.Diff != nil && len(r.Diff.Objects) > 0 {
			var d bytes.Buffer
			if err := r.Diff.WriteText(&d); err != nil {
				return err
			}
			for _, line := range strings.Split(strings.TrimRight(d.String(), "\n"), "\n") {
				w.WriteString("  | " + line + "\n")
			}
		}
	}
	return nil
}

func describe(r Report) string {
	switch r.Verdict {
	case VerdictFails:
		return "would fail to reconcile"
	case VerdictChanges:
		return "reconciles, but the data plane changes"
	default:
		return "safe"
	}
}

// jsonReport is a Report with its diff in manifestdiff's JSON format.
type jsonReport struct {
	Report
	Diff json.RawMessage `json:"diff,omitempty"`
}

// WriteJSON writes the reports as a JSON array (the diff in manifestdiff's documented format).
func WriteJSON(w *bytes.Buffer, reports []Report) error {
	out := make([]jsonReport, 0, len(reports))
	for _, r := range reports {
		jr := jsonReport{Report: r}
		if r.Diff != nil {
			var d bytes.Buffer
			if err := r.Diff.WriteJSON(&d); err != nil {
				return err
			}
			jr.Diff = d.Bytes()
		}
		out = append(out, jr)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// Safe says whether every report is safe.
func Safe(reports []Report) bool {
	for _, r := range reports {
		if r.Verdict != VerdictSafe {
			return false
		}
	}
	return true
}
