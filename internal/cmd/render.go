package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/featuregate"
	"sigs.k8s.io/yaml"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/decode"
	"github.com/calico-pilot/calico-pilot/internal/features"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/manifest"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/plan"
	"github.com/calico-pilot/calico-pilot/internal/rules"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// RenderOptions are the flags of `calico-pilot render`.
type RenderOptions struct {
	// Shoot is a Gardener Shoot manifest (with its providerConfig).
	Shoot string
	// Network and Cluster are the Gardener extension resources the controller sees.
	Network, Cluster string
	// ControllerConfig is a ControllerConfiguration file (feature gates, operator defaults).
	ControllerConfig string
	// FeatureGates are Name=bool pairs; they override the controller configuration's.
	FeatureGates map[string]string
	// KubeAPIServerAddresses feed the gardener-kube-apiserver GlobalNetworkSet.
	KubeAPIServerAddresses []string
	// Output is yaml or json.
	Output string
	// OutputDir writes one YAML file per object instead of printing to stdout.
	OutputDir string
	// CRDs includes the static CRDs.
	CRDs bool
	// Seed renders the seed-side monitoring objects instead of the shoot's.
	Seed bool
	// SeedNamespace is the control-plane namespace for --seed (default shoot--<project>--<name>).
	SeedNamespace string
	// CalicoVersion is the Calico release or line to render; empty: as the controller decides
	// (plan.ChooseCalico).
	CalicoVersion string

	// calico is the deployment the last build rendered, kubernetes its shoot's Kubernetes version.
	calico plan.Choice
	// crdFloor is the oldest CRD schema to render (plan: the schema the current manifest deployed);
	// CRDs never go back.
	crdFloor calicoversion.Release
	// versionFlag names the flag that gave CalicoVersion in messages ("": --calico-version).
	versionFlag string
	kubernetes  string

	gates     map[string]bool
	addresses []netip.Addr
}

// NewRenderCommand returns `calico-pilot render`.
func NewRenderCommand(streams IO) *cobra.Command {
	o := &RenderOptions{}
	cmd := &cobra.Command{
		Use:   "render (--shoot FILE | --network FILE --cluster FILE)",
		Short: "Render every object calico-pilot would deploy for a Shoot, offline",
		Long: `Render the objects calico-pilot deploys into a shoot (CRDs, RBAC, calico-config, calico-node,
typha, kube-controllers, autoscalers, VPAs, monitoring Services, IP pools, multus and the
gardener-kube-apiserver GlobalNetworkSet) from a Gardener Shoot, or from the Network and Cluster
resources the controller reads. The input is validated first with the same rules as
'calico-pilot validate'; invalid input prints one line per error and exits 1.

The output is deterministic: objects are sorted by kind, namespace and name.

The Calico release rendered is --calico-version (a release, or a line meaning its newest release),
else what the controller decides (docs/upgrades.md "Which release a shoot runs"): the release a
Network's status.providerStatus records (a shoot keeps its release until its owner's pin, a rollout or,
when new, the default moves it; a recorded release this calico-pilot no longer carries becomes the
newest of its line), the step of a move the pin starts, and for a new shoot its pin, else
ControllerConfiguration calico.defaultVersion, else the newest release of the catalogue's default line,
the first of these whose line supports the shoot's Kubernetes version. A note on stderr says which
release was rendered and why; a release outside the shoot's Kubernetes range is warned about as
admission and validate say it (the calicoVersion.kubernetes rule).

Exit status: 0 rendered, 1 invalid input, 2 unreadable input or bad usage.`,
		Example: `  calico-pilot render --shoot shoot.yaml
  calico-pilot render --shoot shoot.yaml --feature-gates NonPrivilegedCalicoNode=true -o json
  calico-pilot render --shoot shoot.yaml --kube-apiserver-address 192.0.2.34 --output-dir out/
  calico-pilot render --network network.yaml --cluster cluster.yaml --controller-config config.yaml
  calico-pilot render --shoot shoot.yaml --seed
  calico-pilot render --shoot shoot.yaml --calico-version v3.32`,
		Args: cobra.NoArgs,
	}
	return bindOptions(cmd, o, streams)
}

// AddFlags registers the render flags.
func (o *RenderOptions) AddFlags(f *pflag.FlagSet) {
	f.StringVar(&o.Shoot, "shoot", "", `Gardener Shoot manifest with its providerConfig; "-" reads stdin`)
	f.StringVar(&o.Network, "network", "", "Gardener extensions Network resource (with --cluster)")
	f.StringVar(&o.Cluster, "cluster", "", "Gardener extensions Cluster resource (with --network)")
	f.StringVar(&o.ControllerConfig, "controller-config", "", "ControllerConfiguration file (feature gates, kubeAPIServerGlobalNetworkSet default)")
	f.StringToStringVar(&o.FeatureGates, "feature-gates", nil, "feature gates, e.g. NonPrivilegedCalicoNode=true (override --controller-config); known: "+strings.Join(features.Names(), ", "))
	f.StringArrayVar(&o.KubeAPIServerAddresses, "kube-apiserver-address", nil, "kube-apiserver IP address for the gardener-kube-apiserver GlobalNetworkSet (repeatable)")
	f.StringVarP(&o.Output, "output", "o", "yaml", "output format: yaml or json")
	f.StringVar(&o.OutputDir, "output-dir", "", "write one YAML file per object into this directory instead of stdout")
	f.BoolVar(&o.CRDs, "crds", true, "include the static CRDs")
	f.BoolVar(&o.Seed, "seed", false, "render the seed-side monitoring objects (dashboards, ScrapeConfigs) instead of the shoot's")
	f.StringVar(&o.SeedNamespace, "seed-namespace", "", "control-plane namespace for --seed (default: shoot--<project>--<name> from the Shoot, the Network's namespace)")
	f.StringVar(&o.CalicoVersion, "calico-version", "", "Calico release to render ("+calicoversion.Default().Accepted()+"); default: as the controller decides (the release the Network's status records, the shoot's pin, ControllerConfiguration calico.defaultVersion, else "+calicoversion.Default().DefaultRelease().Name()+" for a new shoot)")
}

// Complete parses the feature gates and addresses.
func (o *RenderOptions) Complete() error {
	o.gates = map[string]bool{}
	names := make([]string, 0, len(o.FeatureGates))
	for k := range o.FeatureGates {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		b, err := strconv.ParseBool(o.FeatureGates[k])
		if err != nil {
			return fmt.Errorf("--feature-gates %s=%s: the value must be true or false", k, o.FeatureGates[k])
		}
		o.gates[k] = b
	}
	if _, err := features.FromMap(o.gates); err != nil {
		return fmt.Errorf("--feature-gates: %w (known gates: %s)", err, strings.Join(features.Names(), ", "))
	}
	if o.CalicoVersion != "" {
		if _, err := calicoversion.Default().Resolve(o.CalicoVersion); err != nil {
			return fmt.Errorf("--calico-version: %w", err)
		}
	}
	o.addresses = nil
	for _, a := range o.KubeAPIServerAddresses {
		addr, err := netip.ParseAddr(strings.TrimSpace(a))
		if err != nil {
			return fmt.Errorf("--kube-apiserver-address %q: not an IP address (give IPv4 or IPv6 addresses, one per flag)", a)
		}
		o.addresses = append(o.addresses, addr)
	}
	return nil
}

// Validate checks the flag combination.
func (o *RenderOptions) Validate() error {
	switch {
	case o.Shoot != "" && (o.Network != "" || o.Cluster != ""):
		return errors.New("give either --shoot or --network with --cluster, not both")
	case o.Shoot == "" && (o.Network == "") != (o.Cluster == ""):
		return errors.New("--network and --cluster go together: give both")
	case o.Shoot == "" && o.Network == "":
		return errors.New("nothing to render: give --shoot FILE, or --network FILE --cluster FILE")
	case o.Network == stdinPath && o.Cluster == stdinPath:
		return errors.New(`--network and --cluster cannot both read stdin ("-"): give at least one of them as a file`)
	}
	if o.Output != "yaml" && o.Output != "json" {
		return fmt.Errorf("--output %q is not supported, use yaml or json", o.Output)
	}
	if o.OutputDir != "" && o.Output != "yaml" {
		return errors.New("--output-dir writes YAML files; drop -o json")
	}
	if o.SeedNamespace != "" && !o.Seed {
		return errors.New("--seed-namespace is only used with --seed")
	}
	return nil
}

// renderInput is the loaded and validated input: the pipeline's source and the decoded config.
type renderInput struct {
	source pipeline.Source
	config *calicov1alpha1.NetworkConfig
	// existing is a Network's config, rendered as the controller does: rules beyond the reference
	// become findings (printed as warnings), and the compatibility mode comes from its status.
	existing bool
}

// Run reads, validates, renders and writes. An internal failure (a bug) becomes an error
// message, never a Go stack trace. When ctx is done (SIGINT/SIGTERM) before the output is
// written, Run returns ExitInterrupted at once and writes nothing; --output-dir files are written
// only after a complete render.
func (o *RenderOptions) Run(ctx context.Context, streams IO) error {
	var m *manifest.Manifest
	err := promptly(ctx, streams, func(_, errOut io.Writer) error {
		var err error
		m, err = o.build(IO{In: streams.In, ErrOut: errOut})
		return err
	})
	if err != nil {
		return err
	}
	// Which Calico line was rendered, and why; the manifest itself is unchanged.
	fmt.Fprintln(streams.ErrOut, o.calico.Note())
	if err := o.write(ctx, streams.Out, m); err != nil {
		if ctx.Err() != nil {
			return interrupted()
		}
		return &ExitError{Code: ExitUsage, Err: err}
	}
	return nil
}

// build reads, validates and renders (render and plan share it); invalid input is reported on
// streams.ErrOut and returned as an ExitError. Its steps: read the input and the operator's
// configuration, build the render settings as the controller would, resolve the options, render.
func (o *RenderOptions) build(streams IO) (*manifest.Manifest, error) {
	in, ctrl, err := o.readInputs(streams)
	if err != nil {
		return nil, err
	}
	settings, err := o.settings(streams.ErrOut, in, ctrl)
	if err != nil {
		return nil, err
	}
	opts, err := o.resolve(streams.ErrOut, in, settings)
	if err != nil {
		return nil, err
	}
	m, err := o.render(&opts)
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	return m, nil
}

// readInputs loads and validates the input (load) and the ControllerConfiguration of
// --controller-config (nil without the flag), and applies --seed-namespace.
func (o *RenderOptions) readInputs(streams IO) (renderInput, *configv1alpha1.ControllerConfiguration, error) {
	in, errs, err := o.load(streams.In)
	if err != nil {
		return renderInput{}, nil, &ExitError{Code: ExitUsage, Err: err}
	}
	if len(errs) > 0 {
		return renderInput{}, nil, reportFieldErrors(streams.ErrOut, errs)
	}
	ctrl, errs, err := o.controllerConfig()
	if err != nil {
		return renderInput{}, nil, &ExitError{Code: ExitUsage, Err: err}
	}
	if len(errs) > 0 {
		return renderInput{}, nil, reportFieldErrors(streams.ErrOut, errs)
	}
	if o.SeedNamespace != "" {
		in.source.SeedNamespace = o.SeedNamespace
	}
	return in, ctrl, nil
}

// settings are the render settings the controller would use: the operator's (the
// ControllerConfiguration with --feature-gates over its gates), the Calico release (chooseCalico)
// with its images for the shoot's Kubernetes version, the --kube-apiserver-address addresses, and
// for a Network what the controller takes from its status (existingSettings).
func (o *RenderOptions) settings(errOut io.Writer, in renderInput, ctrl *configv1alpha1.ControllerConfiguration) (values.Settings, error) {
	fg, err := o.featureGates(ctrl)
	if err != nil {
		return values.Settings{}, &ExitError{Code: ExitUsage, Err: err}
	}
	s := pipeline.OperatorSettings(ctrl, fg)
	vector, err := imageVector(errOut)
	if err != nil {
		return values.Settings{}, &ExitError{Code: ExitUsage, Err: err}
	}
	if s.Calico, err = o.chooseCalico(errOut, in, ctrl, vector); err != nil {
		return values.Settings{}, &ExitError{Code: ExitUsage, Err: err}
	}
	// As the controller: the images for the shoot's Kubernetes version and Calico line.
	if s.Images, err = imagevector.NewResolver(vector).ForShoot(in.source.Shoot.Spec.Kubernetes.Version, s.Calico); err != nil {
		return values.Settings{}, &ExitError{Code: ExitUsage, Err: err}
	}
	s.KubeAPIServerAddresses = o.addresses
	if in.existing {
		if err := existingSettings(&s, in.source.Network, ctrl); err != nil {
			return values.Settings{}, &ExitError{Code: ExitUsage, Err: err}
		}
	}
	return s, nil
}

// imageVector is the image vector with $IMAGEVECTOR_OVERWRITE applied; a warning on errOut names
// each override image calico-pilot does not deploy.
func imageVector(errOut io.Writer) (*imagevector.Vector, error) {
	vector, err := imagevector.VectorFromEnv(os.LookupEnv, readFileLimited)
	if err != nil {
		return nil, err
	}
	for _, n := range vector.Ignored() {
		hint := ""
		if n.DidYouMean != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", n.DidYouMean)
		}
		fmt.Fprintf(errOut, "warning: $%s: ignoring image %q: calico-pilot deploys no image of this name%s\n", imagevector.OverrideEnv, n.Name, hint)
	}
	return vector, nil
}

// chooseCalico is the Calico release to render: asked for, else as the controller decides for a
// shoot that is not moving (plan.ChooseCalico), with CRDs never below crdFloor. It records the
// choice and the shoot's Kubernetes version for Run's note and plan, and warns on errOut when the
// asked-for release is outside the shoot's Kubernetes range.
func (o *RenderOptions) chooseCalico(errOut io.Writer, in renderInput, ctrl *configv1alpha1.ControllerConfiguration, vector *imagevector.Vector) (calicoversion.Deployment, error) {
	k8s := in.source.Shoot.Spec.Kubernetes.Version
	choice, err := plan.ChooseCalico(o.CalicoVersion, in.config, ctrl, in.source.Network, k8s, false, vector.Availability(k8s).Func())
	if err != nil {
		return calicoversion.Deployment{}, err
	}
	if !o.crdFloor.IsZero() && choice.Deployment.CRDs.Line().Compare(o.crdFloor.Line()) < 0 {
		choice.Deployment.CRDs = o.crdFloor
	}
	o.calico, o.kubernetes = choice, k8s
	if o.CalicoVersion != "" {
		// The calicoVersion.kubernetes rule, as admission and validate say it for a pin; the release is
		// rendered all the same (it was asked for). Without the flag the shoot's pin is judged by
		// validation, and a decision that keeps a release for this reason says so in the note.
		asked := &calicov1alpha1.NetworkConfig{CalicoVersion: &o.CalicoVersion}
		flag := "--calico-version"
		if o.versionFlag != "" {
			flag = o.versionFlag
		}
		for _, e := range rules.CalicoVersionKubernetes(asked, k8s, nil) {
			fmt.Fprintf(errOut, "warning: %s %s: %s\n", flag, o.CalicoVersion, e.Detail)
		}
	}
	return choice.Deployment, nil
}

// existingSettings render a Network's config as the controller does: with findings (Ratchet), in the
// compatibility mode its status records (offline there is no ManagedResource to look at, so a
// Network without a status counts as new), with what the controller took over from the reference's
// calico-node in Reference mode.
func existingSettings(s *values.Settings, network *extensionsv1alpha1.Network, ctrl *configv1alpha1.ControllerConfiguration) error {
	var raw []byte
	if ps := network.Status.ProviderStatus; ps != nil {
		raw = ps.Raw
	}
	mode, d, err := pipeline.Compatibility(raw, nil, ctrl)
	if err != nil {
		return err
	}
	s.Ratchet, s.Compatibility = true, mode
	if d.Previous != nil && mode == calicov1alpha1.CompatibilityReference {
		s.TakenOver = d.Previous.TakenOver
	}
	return nil
}

// resolve resolves the options (pipeline.Options) and warns on errOut about each finding: what the
// controller reports in its ProviderConfigHonoured condition, fields deployed other than written.
func (o *RenderOptions) resolve(errOut io.Writer, in renderInput, s values.Settings) (values.Options, error) {
	opts, errs := pipeline.Options(in.source, in.config, s)
	if len(errs) > 0 {
		if len(errs) == 1 && strings.HasSuffix(errs[0].Field, "kubeAPIServerGlobalNetworkSet.enabled") && len(o.addresses) == 0 {
			// The input is valid: offline there are no DNSRecords to read the addresses from, so
			// a flag is missing (the controller would render the set with the shoot's addresses;
			// rendering without it would print something else than what is deployed).
			return values.Options{}, &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s enables the gardener-kube-apiserver GlobalNetworkSet (%s), whose addresses "+
				"render cannot look up offline: give them with --kube-apiserver-address IP (repeatable), or set it to false", o.inputName(), errs[0].Field)}
		}
		return values.Options{}, reportFieldErrors(errOut, errs)
	}
	for _, f := range opts.Findings {
		if f.Rule == rules.RuleCalicoVersionKubernetes {
			// What is deployed for this one is the release decision's, which the note says.
			fmt.Fprintf(errOut, "warning: %s: %s\n", f.Field, f.Detail)
			continue
		}
		fmt.Fprintf(errOut, "warning: %s: %s; deployed: %s\n", f.Field, f.Detail, f.Action)
	}
	return opts, nil
}

// inputName names the input in messages: the Shoot file, or the Network and Cluster files.
func (o *RenderOptions) inputName() string {
	if o.Shoot != "" {
		return inputName(o.Shoot)
	}
	return inputName(o.Network) + " with " + inputName(o.Cluster)
}

// render serializes through the pipeline's Encoder, as the controller does.
func (o *RenderOptions) render(opts *values.Options) (*manifest.Manifest, error) {
	if o.Seed {
		return pipeline.Seed(opts)
	}
	enc, err := pipeline.NewEncoder()
	if err != nil {
		return nil, err
	}
	return enc.Shoot(opts, o.CRDs)
}

func (o *RenderOptions) write(ctx context.Context, out io.Writer, m *manifest.Manifest) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if o.OutputDir != "" {
		if err := os.MkdirAll(o.OutputDir, 0o755); err != nil {
			return fmt.Errorf("creating output directory: %w", err)
		}
		for _, d := range m.Docs() {
			y, err := yaml.JSONToYAML(d.JSON)
			if err != nil {
				return fmt.Errorf("converting %s to YAML: %w", d.ID(), err)
			}
			path := filepath.Join(o.OutputDir, manifest.FileName(d))
			if err := os.WriteFile(path, y, 0o644); err != nil {
				return fmt.Errorf("writing %s: %w", path, err)
			}
		}
		_, err := fmt.Fprintf(out, "wrote %d objects to %s\n", m.Len(), o.OutputDir)
		return err
	}
	var b []byte
	var err error
	if o.Output == "json" {
		b, err = m.List()
	} else {
		b, err = m.YAML()
	}
	if err != nil {
		return err
	}
	_, err = out.Write(b)
	return err
}

// load reads the Shoot, or the Network and Cluster, validates them like `validate` does and
// returns the decoded config and cluster facts.
func (o *RenderOptions) load(stdin io.Reader) (renderInput, field.ErrorList, error) {
	if o.Shoot != "" {
		data, err := readInput(o.Shoot, stdin)
		if err != nil {
			return renderInput{}, nil, err
		}
		// The same reading as validate: unreadable YAML names the file and line (exit 2).
		docs, err := decode.SplitDocuments(data)
		if err != nil {
			return renderInput{}, nil, fmt.Errorf("--shoot %s: %w", inputName(o.Shoot), err)
		}
		if len(docs) != 1 {
			return renderInput{}, nil, fmt.Errorf("--shoot %s: %d YAML documents; render takes one Shoot (validate takes many)", inputName(o.Shoot), len(docs))
		}
		shoot, errs := decode.Shoot(docs[0].JSON)
		if len(errs) > 0 {
			return renderInput{}, errs, nil
		}
		return o.fromShoot(shoot, nil)
	}
	netData, err := readInput(o.Network, stdin)
	if err != nil {
		return renderInput{}, nil, err
	}
	clusterData, err := readInput(o.Cluster, stdin)
	if err != nil {
		return renderInput{}, nil, err
	}
	network := &extensionsv1alpha1.Network{}
	if err := yaml.UnmarshalStrict(netData, network); err != nil {
		return renderInput{}, field.ErrorList{field.Invalid(field.NewPath("network"), o.Network, fmt.Sprintf("not a Network resource: %v", err))}, nil
	}
	if network.Kind != "Network" || network.APIVersion != "extensions.gardener.cloud/v1alpha1" {
		return renderInput{}, field.ErrorList{field.Invalid(field.NewPath("kind"), network.APIVersion+"/"+network.Kind, "--network must be an extensions.gardener.cloud/v1alpha1 Network")}, nil
	}
	if network.Spec.Type != calicov1alpha1.NetworkType {
		// The controller only reconciles Networks of its type.
		return renderInput{}, field.ErrorList{field.NotSupported(field.NewPath("spec", "type"), network.Spec.Type, []string{calicov1alpha1.NetworkType})}, nil
	}
	cluster := &extensionsv1alpha1.Cluster{}
	// Gardener adds Cluster fields all the time; read it leniently, as Gardener does.
	if err := yaml.Unmarshal(clusterData, cluster); err != nil {
		return renderInput{}, field.ErrorList{field.Invalid(field.NewPath("cluster"), o.Cluster, fmt.Sprintf("not a Cluster resource: %v", err))}, nil
	}
	if cluster.Kind != "Cluster" || cluster.APIVersion != "extensions.gardener.cloud/v1alpha1" {
		return renderInput{}, field.ErrorList{field.Invalid(field.NewPath("kind"), cluster.APIVersion+"/"+cluster.Kind, "--cluster must be an extensions.gardener.cloud/v1alpha1 Cluster")}, nil
	}
	// As the controller reads it (decode.ClusterShoot).
	shoot, err := decode.ClusterShoot(cluster)
	if err != nil {
		return renderInput{}, field.ErrorList{field.Invalid(field.NewPath("spec", "shoot"), "", fmt.Sprintf("the embedded Shoot does not decode: %v", err))}, nil
	}
	if shoot == nil {
		return renderInput{}, field.ErrorList{field.Required(field.NewPath("spec", "shoot"), "the Cluster must embed the Shoot")}, nil
	}
	return o.fromShoot(shoot, network)
}

// fromShoot validates and decodes through the pipeline; with a Network, the Network's
// providerConfig, pod CIDR and IP families are what counts (as in the controller).
func (o *RenderOptions) fromShoot(shoot *gardencorev1beta1.Shoot, network *extensionsv1alpha1.Network) (renderInput, field.ErrorList, error) {
	if network == nil {
		cfg, errs := pipeline.ShootConfig(shoot)
		if len(errs) > 0 {
			return renderInput{}, errs, nil
		}
		if rules.NetworkingOf(shoot) == rules.NetworkingWorkerless {
			return renderInput{}, field.ErrorList{field.Required(field.NewPath("spec", "provider", "workers"), "the shoot is workerless and gets no Calico networking; add a worker pool")}, nil
		}
		return renderInput{source: pipeline.Source{Shoot: shoot, SeedNamespace: seedNamespaceOf(shoot)}, config: cfg}, nil, nil
	}
	cfg, errs := pipeline.ExistingNetworkConfig(network)
	if len(errs) > 0 {
		return renderInput{}, errs, nil
	}
	return renderInput{source: pipeline.Source{Shoot: shoot, Network: network}, config: cfg, existing: true}, nil, nil
}

// seedNamespaceOf is Gardener's control-plane namespace of a shoot: shoot--<project>--<name>,
// where the project is the garden-<project> namespace's suffix.
func seedNamespaceOf(shoot *gardencorev1beta1.Shoot) string {
	project := strings.TrimPrefix(shoot.Namespace, "garden-")
	if shoot.Name == "" || project == "" || project == shoot.Namespace {
		return ""
	}
	return "shoot--" + project + "--" + shoot.Name
}

func (o *RenderOptions) controllerConfig() (*configv1alpha1.ControllerConfiguration, field.ErrorList, error) {
	if o.ControllerConfig == "" {
		return nil, nil, nil
	}
	return loadControllerConfig(o.ControllerConfig)
}

// reportFieldErrors prints one line per error, in validate's text format, and exits 1.
func reportFieldErrors(w io.Writer, errs field.ErrorList) error {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "%s: %s\n", e.Field, e.ErrorBody())
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("writing errors: %w", err)}
	}
	return &ExitError{Code: ExitFindings}
}

// featureGates are the ControllerConfiguration's feature gates (nil: none) with --feature-gates over
// them, as the controller would run with them.
func (o *RenderOptions) featureGates(ctrl *configv1alpha1.ControllerConfiguration) (featuregate.FeatureGate, error) {
	gates := map[string]bool{}
	if ctrl != nil {
		maps.Copy(gates, ctrl.FeatureGates)
	}
	maps.Copy(gates, o.gates)
	return features.FromMap(gates)
}
