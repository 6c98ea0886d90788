package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/calico-pilot/calico-pilot/internal/version"
)

// Version is the calico-pilot version (internal/version, set at build time with -ldflags).
var Version = version.Version

// Exit codes shared by all subcommands.
const (
	// ExitOK means the command did what was asked and found nothing wrong.
	ExitOK = 0
	// ExitFindings means the command ran but the input is invalid or a check failed
	// (validation errors, unresolved bump conflicts).
	ExitFindings = 1
	// ExitUsage means bad usage or unreadable input.
	ExitUsage = 2
	// ExitInterrupted is the exit status of a command stopped by SIGINT or SIGTERM (128 + SIGINT,
	// as shells report an interrupted command). An interrupted command has written nothing.
	ExitInterrupted = 130
)

// interrupted is the error of a command stopped by SIGINT or SIGTERM before it wrote anything.
func interrupted() error {
	return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted: nothing was written")}
}

// promptly runs work, which writes only to the two writers it is given, and returns as soon as ctx
// is done (SIGINT/SIGTERM: main's signal context) with ExitInterrupted and nothing written. Only
// when work finishes first is its output copied to streams. Reading or parsing cannot be stopped
// half-way, so an abandoned work goroutine finishes in the background while the process exits.
func promptly(ctx context.Context, streams IO, work func(out, errOut io.Writer) error) error {
	var out, errOut bytes.Buffer
	done := make(chan error, 1) // buffered: an abandoned work does not block on send
	go func() { done <- work(&out, &errOut) }()
	var err error
	select {
	case <-ctx.Done():
		return interrupted()
	case err = <-done:
	}
	if ctx.Err() != nil {
		return interrupted()
	}
	if _, werr := streams.Out.Write(out.Bytes()); werr != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("writing the result: %w", werr)}
	}
	if _, werr := streams.ErrOut.Write(errOut.Bytes()); werr != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("writing errors: %w", werr)}
	}
	return err
}

// contextOf is the command's context (main's signal context), or a context that is never done.
func contextOf(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// ExitError carries an exit code out of a command's RunE. Its message, if any, is printed
// as one line on stderr.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// IO bundles the streams a command reads and writes, so tests can run commands in-process.
type IO struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// NewRootCommand builds the calico-pilot command tree.
func NewRootCommand(streams IO) *cobra.Command {
	root := &cobra.Command{
		Use:   "calico-pilot",
		Short: "Deploy and lifecycle-manage Calico networking on Kubernetes",
		Long: `Deploy and lifecycle-manage Calico networking on Kubernetes.

On a Gardener landscape calico-pilot is the networking extension for Calico (controller, admission);
swap-check, plan, validate and render prepare and preview what it does. On a cluster without Gardener,
apply installs Calico, adopts an install from upstream's manifest or takes over a tigera-operator install.
Every command is described in docs/cli.md.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version,
	}
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	for _, add := range subcommands {
		root.AddCommand(add(streams))
	}
	return root
}

// subcommands lists the constructors of calico-pilot's subcommands, explicitly (no init()
// registration): one line per subcommand.
var subcommands = []func(IO) *cobra.Command{
	NewBumpCommand,
	NewValidateCommand,
	NewLintCommand,
	NewAdmissionCommand,
	NewControllerCommand,
	NewRenderCommand,
	NewSwapCheckCommand,
	NewPoolsCommand,
	NewRolloutCommand,
	NewPlanCommand,
	NewApplyCommand,
	NewManageCommand,
}

// Execute runs calico-pilot with args and returns the process exit code.
func Execute(ctx context.Context, args []string, in io.Reader, out, errOut io.Writer) int {
	root := NewRootCommand(IO{In: in, Out: out, ErrOut: errOut})
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var exitErr *ExitError
	if errors.As(err, &exitErr) {
		if exitErr.Err != nil {
			fmt.Fprintf(errOut, "error: %v\n", exitErr.Err)
		}
		return exitErr.Code
	}
	// Anything cobra itself rejects (unknown flag, missing argument) is bad usage.
	fmt.Fprintf(errOut, "error: %v\n", err)
	return ExitUsage
}

// commandOptions is the one lifecycle every subcommand's options struct follows (cert-manager's
// habit): AddFlags binds the flags to the struct, Complete derives what the flags imply (files
// read, expressions compiled, the logger set), Validate checks the whole before anything runs, and
// Run does the work with the command's context (main's signal context) and streams.
type commandOptions interface {
	AddFlags(fs *pflag.FlagSet)
	Complete() error
	Validate() error
	Run(ctx context.Context, streams IO) error
}

// Every subcommand's options follow the lifecycle.
var (
	_ commandOptions = (*BumpOptions)(nil)
	_ commandOptions = (*DigestsOptions)(nil)
	_ commandOptions = (*ValidateOptions)(nil)
	_ commandOptions = (*RenderOptions)(nil)
	_ commandOptions = (*LintOptions)(nil)
	_ commandOptions = (*AdmissionOptions)(nil)
	_ commandOptions = (*ControllerOptions)(nil)
	_ commandOptions = (*SwapCheckOptions)(nil)
	_ commandOptions = (*PlanOptions)(nil)
	_ commandOptions = (*PoolsMigrateOptions)(nil)
	_ commandOptions = (*ApplyOptions)(nil)
)

// bindOptions binds o's flags to cmd and makes its RunE the lifecycle: Complete and Validate (a
// failure is bad usage, exit 2, unless the step chose its own exit code), then Run.
func bindOptions(cmd *cobra.Command, o commandOptions, streams IO) *cobra.Command {
	o.AddFlags(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		ctx := contextOf(cmd)
		// Complete and Validate read files (a kubeconfig, a config file) and write nothing, so an
		// interrupt abandons them at once: a FIFO nobody writes to must not hold the process.
		done := make(chan error, 1) // buffered: an abandoned step does not block on send
		go func() {
			for _, step := range []func() error{o.Complete, o.Validate} {
				if err := step(); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
		select {
		case <-ctx.Done():
			return interrupted()
		case err := <-done:
			if err != nil {
				var exitErr *ExitError
				if errors.As(err, &exitErr) {
					return err
				}
				return &ExitError{Code: ExitUsage, Err: err}
			}
		}
		if ctx.Err() != nil {
			return interrupted()
		}
		return o.Run(ctx, streams)
	}
	return cmd
}
