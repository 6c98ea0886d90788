package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/calicofacts"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/decode"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/plan"
	"github.com/calico-pilot/calico-pilot/internal/rules"
	"github.com/calico-pilot/calico-pilot/internal/validation"
)

// ValidateOptions are the flags of `calico-pilot validate`.
type ValidateOptions struct {
	// File is the file to validate; "-" reads stdin.
	File string
	// IPFamilies are the shoot's IP families assumed for bare NetworkConfig documents.
	IPFamilies []string
	// Output is "text" (one line per error) or "json" (an array of error objects).
	Output string
	// Strict judges every document as a new config (admission on create): the rules that go
	// beyond the reference extension are errors. Without it they are warnings, as for an existing
	// Shoot (the controller deploys such configs as the reference did; admission refuses only new
	// or changed values).
	Strict bool
	// RunningVersion is the Calico release the shoot runs now: a pin to another line is judged as the
	// webhook judges a changed pin (refused down across a CRD storage change or skipping a line, else
	// the facts of the move as warnings), and only the known issues it does not have are shown.
	RunningVersion string

	running calicoversion.Release
	// runningRetired says that --running-version is retired and what it runs as ("" when carried).
	runningRetired string
	ipFamilies     []gardencorev1beta1.IPFamily
	ipFamiliesSet  bool
	// images are the releases $IMAGEVECTOR_OVERWRITE's vector makes available per Kubernetes
	// version; nil without an override (every release).
	images *imagevector.Resolver
	// flags are the bound flags (AddFlags), so Complete can tell a default from a given value.
	flags *pflag.FlagSet
}

// NewValidateCommand returns `calico-pilot validate`.
func NewValidateCommand(streams IO) *cobra.Command {
	o := &ValidateOptions{}
	cmd := &cobra.Command{
		Use:   "validate -f FILE",
		Short: "Validate a Calico NetworkConfig or a Gardener Shoot and print errors with field paths",
		Long: `Validate a NetworkConfig (calico.networking.extensions.gardener.cloud/v1alpha1) or a Gardener Shoot
(core.gardener.cloud/v1beta1, its spec.networking and providerConfig) with the same rules the admission
webhook and the controller apply. The kind of each document is detected from its kind field; a file may
hold several YAML documents, and a List (as kubectl get -o yaml prints it) is validated item by item. Error paths are rooted where the value was written (ipam.type in a
NetworkConfig file, spec.networking.providerConfig.ipam.type in a Shoot) and prefixed with
documents[N] (counted from 0) when the file has several documents.

Rules that go beyond the reference extension (contradictions it accepted and silently resolved)
are printed as warnings with what calico-pilot deploys instead: an existing Shoot keeps working
with them. --strict makes them errors, as admission treats a new Shoot or a changed value.

The calicoVersion pin is checked as admission checks it: a release or a line calico-pilot deploys, whose
line supports the shoot's Kubernetes version (the calicoVersion.kubernetes rule: a warning for an
existing Shoot, an error with --strict, as admission refuses it for a new Shoot or a changed pin).
The known issues of the pinned release (docs/calico-lines.md) are printed as warnings. With
--running-version RELEASE (the release the shoot runs, its Network's status.providerStatus.calicoVersion)
a pin to another line is judged as a move: refused going down across a change of CRD storage or when
it skips a line, else the facts of the move are printed as warnings (docs/calico-downgrade.md); only
the known issues the running release does not have are printed, and a running release this
calico-pilot no longer carries is named (it runs as the newest release of its line). With
$IMAGEVECTOR_OVERWRITE (the landscape's image vector) a pin to a release it has no images of is invalid,
naming the entry to add.

Exit status: 0 valid (warnings allowed), 1 invalid, 2 unreadable input or bad usage.`,
		Example: `  calico-pilot validate -f networkconfig.yaml
  calico-pilot validate -f networkconfig.yaml --ip-families IPv4,IPv6
  calico-pilot validate -f new-shoot.yaml --strict
  calico-pilot validate -f shoot.yaml --running-version v3.31.7   # what the shoot's pin would move
  kubectl get shoot my-shoot -o yaml | calico-pilot validate -f - -o json
  kubectl get shoots -A -o yaml | calico-pilot validate -f -`,
		Args: cobra.NoArgs,
	}
	return bindOptions(cmd, o, streams)
}

// AddFlags registers the validate flags.
func (o *ValidateOptions) AddFlags(fs *pflag.FlagSet) {
	o.flags = fs
	fs.StringVarP(&o.File, "filename", "f", "", `file with a NetworkConfig or Shoot (several YAML documents allowed); "-" reads stdin (required)`)
	fs.StringSliceVar(&o.IPFamilies, "ip-families", []string{"IPv4"}, "IP families of the shoot a bare NetworkConfig is meant for: IPv4, IPv6 or IPv4,IPv6 (Shoots carry their own)")
	addOutputFlag(fs, &o.Output)
	fs.BoolVar(&o.Strict, "strict", false, "judge as a new config (admission on create): rules beyond the reference extension are errors, not warnings")
	fs.StringVar(&o.RunningVersion, "running-version", "", "Calico release the shoot runs now (its Network's providerStatus calicoVersion; "+calicoversion.Default().Accepted()+"): a calicoVersion pin to another release is judged as a move (refused down across a CRD storage change, else its facts as warnings)")
}

// Complete parses the IP families.
func (o *ValidateOptions) Complete() error {
	o.running, o.runningRetired = calicoversion.Release{}, ""
	if o.RunningVersion != "" {
		// Read as the controller reads a recorded release: a retired one runs as the newest of its line.
		cat := calicoversion.Default()
		n, err := calicoversion.ParseName(o.RunningVersion)
		if err != nil {
			return fmt.Errorf("--running-version: %w", err)
		}
		if _, ok := cat.Line(n.Line()); !ok {
			return fmt.Errorf("--running-version: Calico %s is of line %s, which this calico-pilot does not carry; it carries %s", n, n.Line(), cat.Accepted())
		}
		rec, err := cat.Recorded(o.RunningVersion)
		if err != nil {
			return fmt.Errorf("--running-version: %w", err)
		}
		o.running, o.runningRetired = rec.Release, rec.Message()
	}
	o.ipFamiliesSet = o.flags != nil && o.flags.Changed("ip-families")
	o.ipFamilies = nil
	for _, f := range o.IPFamilies {
		o.ipFamilies = append(o.ipFamilies, gardencorev1beta1.IPFamily(strings.TrimSpace(f)))
	}
	return nil
}

// Validate checks the flags.
func (o *ValidateOptions) Validate() error {
	if o.File == "" {
		return errors.New(`required flag -f/--filename is not set (use "-" for stdin)`)
	}
	if err := checkOutput("output", o.Output); err != nil {
		return err
	}
	if errs := validation.ValidateIPFamilies(o.ipFamilies, field.NewPath("ip-families")); len(errs) > 0 {
		return fmt.Errorf("--ip-families %s: %s", strings.Join(o.IPFamilies, ","), errs[0].ErrorBody())
	}
	if len(o.ipFamilies) == 0 {
		return errors.New("--ip-families must name at least one family: IPv4, IPv6 or IPv4,IPv6")
	}
	return nil
}

// documentResult is the outcome of validating one document.
type documentResult struct {
	// describe names the document: its kind, and namespace/name for a Shoot.
	describe string
	// note is said next to "valid" (e.g. why a Shoot was not checked).
	note string
	errs field.ErrorList
	// warnings are the errors of rules beyond the reference when not --strict.
	warnings field.ErrorList
	// moves are what a pin to another line than --running-version does (calicofacts.Notes).
	moves []moveNote
}

// moveNote is one note on a pin, at its path: a fact of the move between Calico lines from
// --running-version, a known issue of the pinned release, or the retirement of --running-version.
type moveNote struct {
	// Type is the JSON output's type: CalicoMove, KnownIssue or CalicoRetired.
	Type        string
	Field, Text string
}

// Types of moveNote.
const (
	noteMove       = "CalicoMove"
	noteKnownIssue = "KnownIssue"
	noteRetired    = "CalicoRetired"
)

// Run reads, validates and reports. Validation findings are an ExitError with code ExitFindings.
// When ctx is done first (SIGINT/SIGTERM), Run returns ExitInterrupted at once and prints nothing.
func (o *ValidateOptions) Run(ctx context.Context, streams IO) error {
	return promptly(ctx, streams, func(out, errOut io.Writer) error {
		return o.run(IO{In: streams.In, Out: out, ErrOut: errOut})
	})
}

func (o *ValidateOptions) run(streams IO) error {
	data, err := readInput(o.File, streams.In)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if path, ok := os.LookupEnv(imagevector.OverrideEnv); ok && path != "" {
		// The landscape's override: a pin is judged against the releases it has images of.
		vector, err := imageVector(streams.ErrOut)
		if err != nil {
			return &ExitError{Code: ExitUsage, Err: err}
		}
		o.images = imagevector.NewResolver(vector)
	}
	docs, err := decode.SplitDocuments(data)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s: %w", inputName(o.File), err)}
	}
	if len(docs) == 0 {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s: no YAML documents found", inputName(o.File))}
	}
	results := make([]documentResult, len(docs))
	for i, doc := range docs {
		res, err := o.validateDocument(doc)
		if err != nil {
			return &ExitError{Code: ExitUsage, Err: err}
		}
		validation.ShortenBadValues(res.errs)
		validation.ShortenBadValues(res.warnings)
		results[i] = res
		docs[i].JSON = nil // validated documents are not kept
	}

	var writeErr error
	if o.Output == outputJSON {
		writeErr = writeJSONResults(streams.Out, results)
	} else {
		writeErr = writeTextResults(streams.Out, results)
	}
	if writeErr != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("writing the result: %w", writeErr)}
	}
	for _, res := range results {
		if len(res.errs) > 0 {
			return &ExitError{Code: ExitFindings}
		}
	}
	return nil
}

// validateDocument decodes and validates one document by its kind.
func (o *ValidateOptions) validateDocument(doc decode.Document) (res documentResult, err error) {
	kindPath := field.NewPath("kind")
	switch doc.Kind {
	case "NetworkConfig":
		res.describe = "NetworkConfig"
		cfg, errs := decode.NetworkConfig(doc.JSON, nil)
		if len(errs) > 0 {
			res.errs = errs
			return res, nil
		}
		res.errs = validation.ValidateNetworkConfig(cfg, o.ipFamilies, nil)
		res.errs = append(res.errs, rules.CalicoVersionAvailable(cfg, o.available(""), nil)...)
		o.pinMove(&res, cfg, nil)
	case "Shoot":
		if o.ipFamiliesSet {
			return res, fmt.Errorf("--ip-families applies to NetworkConfig documents only; Shoot %s uses its spec.networking.ipFamilies", objectName(doc))
		}
		res.describe = "Shoot " + objectName(doc)
		shoot, errs := decode.Shoot(doc.JSON)
		if len(errs) > 0 {
			res.errs = errs
			return res, nil
		}
		if rules.NetworkingOf(shoot) == rules.NetworkingWorkerless {
			res.note = "workerless, so it has no Calico networking to check"
		}
		// The config comes back next to the errors whenever it decodes: a pin is noted either way.
		var cfg *calicov1alpha1.NetworkConfig
		cfg, res.errs = pipeline.ShootConfig(shoot)
		res.errs = append(res.errs, rules.CalicoVersionAvailable(cfg, o.available(shoot.Spec.Kubernetes.Version), decode.ProviderConfigPath())...)
		o.pinMove(&res, cfg, decode.ProviderConfigPath())
	case "List", "ShootList":
		return o.validateList(doc)
	case "":
		res.describe = "document without kind"
		res.errs = field.ErrorList{field.Required(kindPath, `must be "NetworkConfig" or "Shoot"`)}
	default:
		res.describe = doc.Kind
		res.errs = field.ErrorList{field.NotSupported(kindPath, doc.Kind, []string{"NetworkConfig", "Shoot"})}
	}
	if !o.Strict {
		res.errs, res.warnings = splitWarnings(res.errs)
	}
	return res, nil
}

// available is the releases the override's vector makes available for Kubernetes version k8s ("":
// unknown, every constraint holds); nil without an override.
func (o *ValidateOptions) available(k8s string) calicoversion.Available {
	if o.images == nil {
		return nil
	}
	return o.images.Availability(k8s).Func()
}

// pinMove says what a pin does: the known issues of the pinned release (those --running-version does
// not have already) and, with --running-version, its retirement and a pin to another line judged as
// the webhook judges a changed pin.
func (o *ValidateOptions) pinMove(res *documentResult, cfg *calicov1alpha1.NetworkConfig, path *field.Path) {
	if cfg == nil {
		return
	}
	pin, errs := rules.CalicoVersion(cfg, path)
	if len(errs) > 0 || pin.IsZero() {
		return
	}
	at := path.Child("calicoVersion").String()
	if !o.running.IsZero() {
		if o.runningRetired != "" {
			res.moves = append(res.moves, moveNote{Type: noteRetired, Field: at, Text: "--running-version: " + o.runningRetired})
		}
		lineErrs, _ := rules.CalicoLineChange(o.running, pin, path)
		res.errs = append(res.errs, lineErrs...)
		for _, n := range calicofacts.Notes(o.running, pin) {
			res.moves = append(res.moves, moveNote{Type: noteMove, Field: at, Text: n})
		}
	}
	// Without --running-version (a zero release: no deployment) every known issue of the pin's release.
	for _, k := range plan.NewKnownIssues(calicoversion.Steady(o.running), calicoversion.Steady(pin)) {
		res.moves = append(res.moves, moveNote{Type: noteKnownIssue, Field: at, Text: k.Warning()})
	}
}

// splitWarnings separates the errors of rules beyond the reference extension.
func splitWarnings(errs field.ErrorList) (field.ErrorList, field.ErrorList) {
	var hard, warnings field.ErrorList
	for _, e := range errs {
		if rules.BeyondReference(e) {
			warnings = append(warnings, e)
		} else {
			hard = append(hard, e)
		}
	}
	return hard, warnings
}

// warningText says what a warning means and what is deployed.
func warningText(e *field.Error) string {
	return fmt.Sprintf("%s; an existing Shoot keeps working (deployed: %s), a new one or a changed value is refused", e.ErrorBody(), rules.RatchetAction(rules.ID(e.Origin)))
}

// validateList validates the items of a List (as `kubectl get shoots -o yaml` prints) one by one,
// with paths below items[i].
func (o *ValidateOptions) validateList(doc decode.Document) (documentResult, error) {
	res := documentResult{describe: doc.Kind}
	// Items stay raw JSON until each is validated: a generic map of a 22 MB List of 12k Shoots
	// took ~30× the input in memory (measured).
	var list struct {
		Items json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(doc.JSON, &list); err != nil {
		return res, fmt.Errorf("document %d: %w", doc.Index, err)
	}
	itemsPath := field.NewPath("items")
	var items []json.RawMessage
	switch trimmed := bytes.TrimSpace(list.Items); {
	case len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")):
		res.errs = field.ErrorList{field.Required(itemsPath, "a List needs items (Shoots or NetworkConfigs)")}
		return res, nil
	case json.Unmarshal(trimmed, &items) != nil:
		res.errs = field.ErrorList{field.TypeInvalid(itemsPath, shortJSON(trimmed), "must be a list of Shoots or NetworkConfigs")}
		return res, nil
	}
	res.describe = fmt.Sprintf("%s of %d items", doc.Kind, len(items))
	for i, raw := range items {
		itemPath := itemsPath.Index(i)
		docs, err := decode.SplitDocuments(raw)
		items[i] = nil // validated items are not kept
		if err != nil || len(docs) != 1 {
			res.errs = append(res.errs, field.TypeInvalid(itemPath, shortJSON(raw), "must be an object with apiVersion and kind"))
			continue
		}
		if docs[0].Kind == "List" || docs[0].Kind == "ShootList" {
			res.errs = append(res.errs, field.NotSupported(itemPath.Child("kind"), docs[0].Kind, []string{"NetworkConfig", "Shoot"}))
			continue
		}
		itemRes, err := o.validateDocument(docs[0])
		if err != nil {
			return res, err
		}
		for _, e := range itemRes.errs {
			prefixed := *e
			prefixed.Field = decode.JoinPath(itemPath.String(), e.Field)
			res.errs = append(res.errs, &prefixed)
		}
		for _, e := range itemRes.warnings {
			prefixed := *e
			prefixed.Field = decode.JoinPath(itemPath.String(), e.Field)
			res.warnings = append(res.warnings, &prefixed)
		}
		for _, m := range itemRes.moves {
			res.moves = append(res.moves, moveNote{Type: m.Type, Field: decode.JoinPath(itemPath.String(), m.Field), Text: m.Text})
		}
	}
	return res, nil
}

// shortJSON is a JSON value for a message: the value itself when short, else its start.
func shortJSON(raw []byte) any {
	var v any
	if len(raw) <= validation.MaxBadValueBytes && json.Unmarshal(raw, &v) == nil {
		return v
	}
	return validation.ShortValue(string(raw))
}

func objectName(doc decode.Document) string {
	switch {
	case doc.Namespace != "" && doc.Name != "":
		return doc.Namespace + "/" + doc.Name
	case doc.Name != "":
		return doc.Name
	default:
		return "(no name)"
	}
}

// fieldPrefix is prepended to every path of document i when there are several documents.
func fieldPrefix(results []documentResult, i int) string {
	if len(results) < 2 {
		return ""
	}
	return fmt.Sprintf("documents[%d]", i)
}

func writeTextResults(w io.Writer, results []documentResult) error {
	var b strings.Builder
	for i, res := range results {
		prefix := fieldPrefix(results, i)
		for _, e := range res.warnings {
			fmt.Fprintf(&b, "%s: warning: %s\n", decode.JoinPath(prefix, e.Field), warningText(e))
		}
		for _, m := range res.moves {
			fmt.Fprintf(&b, "%s: warning: %s\n", decode.JoinPath(prefix, m.Field), m.Text)
		}
		if len(res.errs) == 0 {
			line := res.describe + ": valid"
			if prefix != "" {
				line = fmt.Sprintf("%s (%s): valid", prefix, res.describe)
			}
			if res.note != "" {
				line += " (" + res.note + ")"
			}
			b.WriteString(line + "\n")
			continue
		}
		for _, e := range res.errs {
			fmt.Fprintf(&b, "%s: %s\n", decode.JoinPath(prefix, e.Field), e.ErrorBody())
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// jsonError is one error in `-o json` output.
type jsonError struct {
	Field    string `json:"field"`
	Type     string `json:"type"`
	BadValue any    `json:"badValue,omitempty"`
	Detail   string `json:"detail"`
	// Warning marks a rule beyond the reference extension (not an error without --strict).
	Warning bool `json:"warning,omitempty"`
	// Action says what calico-pilot deploys for an existing config (warnings only).
	Action string `json:"action,omitempty"`
}

// hasBadValue reports whether an error type carries the user's value (Required and Forbidden only
// carry an empty placeholder).
func hasBadValue(e *field.Error) bool {
	switch e.Type {
	case field.ErrorTypeRequired, field.ErrorTypeForbidden, field.ErrorTypeInternal:
		return false
	}
	return e.BadValue != nil
}

func writeJSONResults(w io.Writer, results []documentResult) error {
	out := []jsonError{}
	for i, res := range results {
		prefix := fieldPrefix(results, i)
		for _, e := range res.warnings {
			je := jsonError{Field: decode.JoinPath(prefix, e.Field), Type: string(e.Type), Detail: e.Detail, Warning: true, Action: rules.RatchetAction(rules.ID(e.Origin))}
			if hasBadValue(e) {
				v := e.BadValue
				je.BadValue = &v
			}
			out = append(out, je)
		}
		for _, m := range res.moves {
			out = append(out, jsonError{Field: decode.JoinPath(prefix, m.Field), Type: m.Type, Detail: m.Text, Warning: true})
		}
		for _, e := range res.errs {
			je := jsonError{Field: decode.JoinPath(prefix, e.Field), Type: string(e.Type), Detail: e.Detail}
			if hasBadValue(e) {
				// A pointer keeps an empty string or a zero from being dropped by omitempty.
				v := e.BadValue
				je.BadValue = &v
			}
			out = append(out, je)
		}
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding errors as JSON: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}
