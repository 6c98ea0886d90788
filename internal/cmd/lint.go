package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/calico-pilot/calico-pilot/internal/lint"
)

// LintOptions are the flags of `calico-pilot lint`.
type LintOptions struct {
	// File is the file to lint; "-" reads stdin.
	File string
	// Output is "text" (one line per finding) or "json" (an array of finding objects).
	Output string
}

// NewLintCommand returns `calico-pilot lint`.
func NewLintCommand(streams IO) *cobra.Command {
	o := &LintOptions{}
	cmd := &cobra.Command{
		Use:   "lint -f FILE",
		Short: "Check Calico policies and network sets (crd.projectcalico.org/v1) before they reach a cluster",
		Long: `Check NetworkPolicy, GlobalNetworkPolicy, StagedNetworkPolicy, StagedGlobalNetworkPolicy, NetworkSet and
GlobalNetworkSet objects of crd.projectcalico.org/v1, the API shoot clusters use since they run no Calico API
server. That API does no defaulting and does not validate selectors: the API server stores what you write,
and calico-node or typha fail on it later. lint reports as errors what Calico rejects or ignores (selector
syntax errors with their column, missing spec.types, spec.selector or spec.order, ports without a TCP, UDP
or SCTP protocol, ICMP fields with another protocol, rules of a direction types leaves out, ...), and as
warnings the traps of the Gardener kube-apiserver GlobalNetworkSet and selectors that can never match.

A file may hold several YAML documents and Lists (kubectl get -o yaml). Paths are rooted at the document
and prefixed with documents[N] (from 0) when the file has several; each finding carries its line and, for
selector errors, the column of the offending character.

Exit status: 0 clean or warnings only, 1 errors, 2 unreadable input or bad usage.`,
		Example: `  calico-pilot lint -f policies.yaml
  kubectl get globalnetworkpolicies.crd.projectcalico.org -o yaml | calico-pilot lint -f -
  calico-pilot lint -f policies.yaml -o json`,
		Args: cobra.NoArgs,
	}
	return bindOptions(cmd, o, streams)
}

// AddFlags registers the lint flags.
func (o *LintOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVarP(&o.File, "filename", "f", "", `file with Calico policies and network sets (several YAML documents allowed); "-" reads stdin (required)`)
	addOutputFlag(fs, &o.Output)
}

// Complete has nothing to derive: lint's flags are used as given.
func (o *LintOptions) Complete() error { return nil }

// Validate checks the flags.
func (o *LintOptions) Validate() error {
	if o.File == "" {
		return errors.New(`required flag -f/--filename is not set (use "-" for stdin)`)
	}
	if err := checkOutput("output", o.Output); err != nil {
		return err
	}
	return nil
}

// Run reads, lints and reports. Errors among the findings are an ExitError with code ExitFindings.
// It only reads, so an interrupt stops it at once (exit 130, nothing printed).
func (o *LintOptions) Run(ctx context.Context, streams IO) error {
	return promptly(ctx, streams, func(out, _ io.Writer) error {
		data, err := readInputContext(ctx, o.File, streams.In)
		if err != nil {
			return &ExitError{Code: ExitUsage, Err: err}
		}
		res, err := lint.Lint(data)
		if err != nil {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s: %w", inputName(o.File), err)}
		}
		if o.Output == outputJSON {
			err = res.WriteJSON(out)
		} else {
			err = res.WriteText(out)
		}
		if err != nil {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("writing the result: %w", err)}
		}
		if res.HasErrors() {
			return &ExitError{Code: ExitFindings}
		}
		return nil
	})
}
