package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/calico-pilot/calico-pilot/internal/bump"
	"github.com/calico-pilot/calico-pilot/internal/safefile"
)

// BumpOptions are the flags of `calico-pilot bump`.
type BumpOptions struct {
	OldUpstream   string
	OldDownstream string
	NewUpstream   string
	Output        string
	Report        string
	ReportFormat  string
	FromVersion   string
	ToVersion     string
	ExpectAbsent  []string
	ExpectCount   []string
	Force         bool

	expectAbsent []*regexp.Regexp
	expectCount  []bump.CountCheck
}

// AddFlags registers the bump flags on fs.
func (o *BumpOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.OldUpstream, "old-upstream", "", "upstream manifest the downstream was based on (required)")
	fs.StringVar(&o.OldDownstream, "old-downstream", "", "the downstream's patched manifest, plain YAML or templated (required)")
	fs.StringVar(&o.NewUpstream, "new-upstream", "", "the new upstream manifest (required)")
	fs.StringVarP(&o.Output, "output", "o", "", "write the new downstream to this file instead of stdout")
	fs.StringVar(&o.Report, "report", "", "write the report to this file instead of stderr")
	fs.StringVar(&o.ReportFormat, "report-format", outputText, "report format: text or json")
	fs.StringVar(&o.FromVersion, "from-version", "", "old upstream version (default: inferred from the old upstream's calico image tags)")
	fs.StringVar(&o.ToVersion, "to-version", "", "new upstream version (default: inferred from the new upstream's calico image tags)")
	fs.StringArrayVar(&o.ExpectAbsent, "expect-absent", nil, "fail (exit 1) when an output line matches this regular expression; repeatable")
	fs.BoolVar(&o.Force, "force", false, "merge even when the old downstream does not look made from the old upstream (the downstream-origin check)")
	fs.StringArrayVar(&o.ExpectCount, "expect-count", nil, "REGEX=N: fail (exit 1) unless exactly N output lines match REGEX; repeatable")
}

// Complete compiles the check expressions.
func (o *BumpOptions) Complete() error {
	for _, expr := range o.ExpectAbsent {
		re, err := regexp.Compile(expr)
		if err != nil {
			return fmt.Errorf("--expect-absent %q: not a valid regular expression: %w", expr, err)
		}
		o.expectAbsent = append(o.expectAbsent, re)
	}
	for _, spec := range o.ExpectCount {
		eq := strings.LastIndexByte(spec, '=')
		if eq < 0 {
			return fmt.Errorf("--expect-count %q: want REGEX=N, for example 'build_image_name=5'", spec)
		}
		n, err := strconv.Atoi(spec[eq+1:])
		if err != nil || n < 0 {
			return fmt.Errorf("--expect-count %q: the count after the last '=' must be a non-negative integer", spec)
		}
		re, err := regexp.Compile(spec[:eq])
		if err != nil {
			return fmt.Errorf("--expect-count %q: not a valid regular expression: %w", spec, err)
		}
		o.expectCount = append(o.expectCount, bump.CountCheck{Pattern: re, Count: n})
	}
	return nil
}

// Validate checks that the required flags are set and the values are known.
func (o *BumpOptions) Validate() error {
	var missing []string
	for _, f := range []struct{ name, value string }{
		{"--old-upstream", o.OldUpstream}, {"--old-downstream", o.OldDownstream}, {"--new-upstream", o.NewUpstream},
	} {
		if f.value == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing required flags: %s", strings.Join(missing, ", "))
	}
	return checkOutput("report-format", o.ReportFormat)
}

// Run merges, writes the output and the report, and returns an *ExitError for conflicts (1),
// unreadable input or an output that cannot be written (2), or an interrupt (ExitInterrupted).
// Outputs are checked before any work and written only after a complete merge: an interrupted
// bump writes nothing.
func (o *BumpOptions) Run(ctx context.Context, streams IO) error {
	if err := o.checkOutputs(); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	read := func(flag, path string) (bump.Input, error) {
		data, err := readInput(path, nil)
		if err != nil {
			return bump.Input{}, fmt.Errorf("%s: %w", flag, err)
		}
		return bump.Input{Name: path, Data: data}, nil
	}
	oldUp, err := read("--old-upstream", o.OldUpstream)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	oldDown, err := read("--old-downstream", o.OldDownstream)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	newUp, err := read("--new-upstream", o.NewUpstream)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	res, err := mergePromptly(ctx, oldUp, oldDown, newUp, bump.Options{
		FromVersion: o.FromVersion, ToVersion: o.ToVersion,
		ExpectAbsent: o.expectAbsent, ExpectCount: o.expectCount,
		Force: o.Force,
	})
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		var inErr *bump.InputError
		switch {
		case errors.As(err, &inErr):
			return &ExitError{Code: ExitUsage, Err: err}
		case ctx.Err() != nil:
			return interrupted()
		}
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("merging: %w", err)}
	}
	if o.Output == "" {
		if _, err := streams.Out.Write(res.Output); err != nil {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("writing output: %w", err)}
		}
	} else if err := safefile.WriteContext(ctx, o.Output, res.Output); err != nil {
		if ctx.Err() != nil {
			// A FIFO nobody reads (open would wait forever) or a reader that stopped.
			return &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted: -o: %w", err)}
		}
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("-o: %w", err)}
	}
	if err := o.writeReport(ctx, streams.ErrOut, &res.Report); err != nil {
		if ctx.Err() != nil {
			return &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted: %w", err)}
		}
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if !res.Report.Clean() {
		return &ExitError{Code: ExitFindings, Err: summarize(&res.Report)}
	}
	return nil
}

// mergePromptly runs bump.Merge and returns as soon as ctx is done. Merge checks ctx between its
// steps, but parsing one large YAML document cannot be interrupted (measured: 4 s after SIGINT
// on a loaded machine with 190,000-line inputs); the abandoned merge finishes in the background
// and the process exits meanwhile.
func mergePromptly(ctx context.Context, oldUp, oldDown, newUp bump.Input, opts bump.Options) (*bump.Result, error) {
	type result struct {
		res *bump.Result
		err error
	}
	done := make(chan result, 1) // buffered: an abandoned merge does not block on send
	go func() {
		res, err := bump.Merge(ctx, oldUp, oldDown, newUp, opts)
		done <- result{res, err}
	}()
	select {
	case r := <-done:
		return r.res, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("bump cancelled: %w", ctx.Err())
	}
}

// checkOutputs refuses, before any work, an output that cannot be written (a directory, a dangling
// symlink) and one that names an input or the other output: the report written over the merged
// manifest or over an input would lose it. -o naming the old downstream is the in-place bump and
// allowed (all inputs are read before anything is written). Paths are compared as files (inode,
// or resolved location for files that do not exist yet), not as strings.
func (o *BumpOptions) checkOutputs() error {
	outputs := []struct{ flag, path string }{{"-o", o.Output}, {"--report", o.Report}}
	inputs := []struct{ flag, path string }{
		{"--old-upstream", o.OldUpstream}, {"--old-downstream", o.OldDownstream}, {"--new-upstream", o.NewUpstream},
	}
	for _, out := range outputs {
		if out.path == "" {
			continue
		}
		if err := safefile.Check(out.path); err != nil {
			return fmt.Errorf("%s: %w", out.flag, err)
		}
		for _, in := range inputs {
			if in.path == stdinPath || (out.flag == "-o" && in.flag == "--old-downstream") {
				continue
			}
			if safefile.SameFile(out.path, in.path) {
				return fmt.Errorf("%s %s is the same file as %s %s: refusing to overwrite an input", out.flag, out.path, in.flag, in.path)
			}
		}
	}
	if o.Output != "" && o.Report != "" && safefile.SameFile(o.Output, o.Report) {
		return fmt.Errorf("-o %s and --report %s are the same file: give them different files", o.Output, o.Report)
	}
	return nil
}

func (o *BumpOptions) writeReport(ctx context.Context, stderr io.Writer, r *bump.Report) error {
	var b strings.Builder
	var err error
	if o.ReportFormat == outputJSON {
		err = r.WriteJSON(&b)
	} else {
		err = r.WriteText(&b)
	}
	if err != nil {
		return err
	}
	if o.Report == "" {
		if _, err := io.WriteString(stderr, b.String()); err != nil {
			return fmt.Errorf("writing report: %w", err)
		}
		return nil
	}
	if err := safefile.WriteContext(ctx, o.Report, []byte(b.String())); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	return nil
}

// summarize is the one-line error for an unclean bump.
func summarize(r *bump.Report) error {
	var parts []string
	if r.Conflicts > 0 {
		parts = append(parts, fmt.Sprintf("%d conflict blocks left in the output (search for '<<<<<<< downstream')", r.Conflicts))
	}
	for _, c := range r.Checks {
		if !c.OK {
			parts = append(parts, fmt.Sprintf("check %s failed: %s", c.Name, c.Message))
		}
	}
	return errors.New(strings.Join(parts, "; "))
}

// DigestsOptions are the flags of `calico-pilot bump digests`.
type DigestsOptions struct {
	Version   string
	Registry  string
	Namespace string
	Images    []string
	Insecure  bool
	Timeout   time.Duration
}

// AddFlags registers the digests flags.
func (o *DigestsOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Version, "version", "", "Calico version (image tag), for example v3.26.1 (required)")
	fs.StringVar(&o.Registry, "registry", "quay.io", "registry host")
	fs.StringVar(&o.Namespace, "namespace", "calico", "repository namespace on the registry")
	fs.StringSliceVar(&o.Images, "images", []string{"cni", "node", "kube-controllers"}, "images to resolve")
	fs.BoolVar(&o.Insecure, "insecure", false, "talk plain HTTP to the registry")
	fs.DurationVar(&o.Timeout, "timeout", 60*time.Second, "give up after this long")
}

// Complete drops empty and surrounding blanks from --images.
func (o *DigestsOptions) Complete() error {
	images := o.Images[:0:0]
	for _, img := range o.Images {
		if img = strings.TrimSpace(img); img != "" {
			images = append(images, img)
		}
	}
	o.Images = images
	return nil
}

// Validate checks the digests flags.
func (o *DigestsOptions) Validate() error {
	if o.Version == "" {
		return errors.New("--version is required, for example --version v3.26.1")
	}
	if o.Registry == "" {
		return errors.New("--registry must not be empty")
	}
	if len(o.Images) == 0 {
		return errors.New("--images must name at least one image")
	}
	if o.Timeout <= 0 {
		return fmt.Errorf("--timeout %s: must be positive", o.Timeout)
	}
	return nil
}

// NewBumpCommand builds `calico-pilot bump` and its `digests` subcommand.
func NewBumpCommand(streams IO) *cobra.Command {
	o := &BumpOptions{}
	cmd := &cobra.Command{
		Use:   "bump --old-upstream FILE --old-downstream FILE --new-upstream FILE",
		Short: "Carry a downstream's patches onto a new upstream Calico manifest",
		Long: `bump finds the downstream's local patches (old downstream vs old upstream), applies them to the
new upstream anchored on the YAML structure, and writes the new downstream and a report.

Exit codes: 0 every patch applied and every check passed; 1 conflicts remain (the output is still
written, with marked conflict blocks) or a check failed (including downstream-origin: the old
downstream does not look made from the old upstream; --force accepts it); 2 bad usage, unreadable
or too large input (64 MiB per input), an output that cannot be written or that names an input or
the other output; 130 interrupted (SIGINT/SIGTERM; nothing is written).`,
		Args: cobra.NoArgs,
	}
	bindOptions(cmd, o, streams)
	cmd.AddCommand(newBumpDigestsCommand(streams))
	return cmd
}

func newBumpDigestsCommand(streams IO) *cobra.Command {
	o := &DigestsOptions{}
	cmd := &cobra.Command{
		Use:   "digests --version vX.Y.Z",
		Short: "Print the registry digests of the Calico images of a version",
		Long: `Resolve each Calico image's manifest digest for a version through the registry API (anonymous
access) and print one "IMAGE: VERSION@sha256:..." line per image, in the order given (docs/bump.md).

Exit status: 0 printed, 1 a missing tag, an unreachable registry or an answer that is not an image
manifest or index (each naming the image), 2 bad usage.`,
		Example: `  calico-pilot bump digests --version v3.31.7
  calico-pilot bump digests --version v3.31.7 --registry docker.io`,
		Args: cobra.NoArgs,
	}
	return bindOptions(cmd, o, streams)
}

// Run resolves the digests (within --timeout) and prints them.
func (o *DigestsOptions) Run(ctx context.Context, streams IO) error {
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	digests, err := bump.ResolveDigests(ctx, bump.DigestRequest{
		Registry: o.Registry, Namespace: o.Namespace, Version: o.Version, Images: o.Images, Insecure: o.Insecure,
	})
	if err != nil {
		return &ExitError{Code: ExitFindings, Err: err}
	}
	if err := bump.WriteDigests(streams.Out, digests); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	return nil
}
