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
	"k8s.io/component-base/featuregate"

	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/controller/network"
	"github.com/calico-pilot/calico-pilot/internal/decode"
	"github.com/calico-pilot/calico-pilot/internal/features"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/manifestdiff"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/rules"
	"github.com/calico-pilot/calico-pilot/internal/seedstate"
	"github.com/calico-pilot/calico-pilot/internal/swapcheck"
)

// SwapCheckOptions are the flags of `calico-pilot swap-check`.
type SwapCheckOptions struct {
	// File holds Shoots (kubectl get shoots -A -o yaml) or a seed dump (Networks, Clusters,
	// ManagedResources, Secrets); "-" reads stdin.
	File string
	// Kubeconfig is a seed's kubeconfig: every calico Network, its Cluster and ManagedResource.
	Kubeconfig string
	// ConfigFile is the ControllerConfiguration calico-pilot will run with (honourIgnoredFields,
	// feature gates, GlobalNetworkSet default).
	ConfigFile string
	// Output is text or json.
	Output string

	config *configv1alpha1.ControllerConfiguration
}

// NewSwapCheckCommand returns `calico-pilot swap-check`.
func NewSwapCheckCommand(streams IO) *cobra.Command {
	o := &SwapCheckOptions{}
	cmd := &cobra.Command{
		Use:   "swap-check (-f FILE | --kubeconfig SEED_KUBECONFIG)",
		Short: "Pre-flight for swapping calico-pilot in for the reference extension: per shoot, would it reconcile and what would change",
		Long: `For every calico shoot, say whether calico-pilot would reconcile its providerConfig, which fields are
contradictory (accepted by the reference extension, refused by calico-pilot for new configs) or
ignored (as the reference did, compatibility mode Reference), and what calico-pilot deploys for each.

With --kubeconfig of a seed (or -f with a dump of its Networks, Clusters, ManagedResources and
Secrets) it also compares the deployed ManagedResource with what calico-pilot would deploy, object by
object and field by field (added, removed, changed), and names the changes that restart calico-node
or typha, and each named fix of the pod templates with its reason. With -f of Shoots (kubectl get
shoots -A -o yaml) there is no deployed manifest to compare.

Per shoot it also prints the Calico release it runs and the one calico-pilot would give it, naming a
release this calico-pilot no longer carries. With $IMAGEVECTOR_OVERWRITE (the landscape's image vector) it
prints which releases the vector has images of for each shoot's Kubernetes version and the entry a shoot
lacks (docs/compatibility.md, docs/cli.md).

Exit status: 0 every shoot is safe, 1 some shoot would fail or change, 2 bad input or usage.`,
		Example: `  kubectl get shoots -A -o yaml > shoots.yaml && calico-pilot swap-check -f shoots.yaml
  calico-pilot swap-check --kubeconfig seed.kubeconfig --config controller-config.yaml -o json`,
		Args: cobra.NoArgs,
	}
	return bindOptions(cmd, o, streams)
}

// AddFlags registers the swap-check flags.
func (o *SwapCheckOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVarP(&o.File, "filename", "f", "", `file with Shoots, or with a seed's Networks, Clusters, ManagedResources and Secrets; "-" reads stdin`)
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "kubeconfig of a seed: reads every calico Network with its Cluster and deployed ManagedResource")
	fs.StringVar(&o.ConfigFile, "config", "", "ControllerConfiguration calico-pilot will run with (compatibility.honourIgnoredFields, featureGates, kubeAPIServerGlobalNetworkSet)")
	addOutputFlag(fs, &o.Output)
}

// Complete reads the ControllerConfiguration.
func (o *SwapCheckOptions) Complete() error {
	if o.ConfigFile == "" {
		return nil
	}
	cfg, errs, err := loadControllerConfig(o.ConfigFile)
	if err != nil {
		return fmt.Errorf("--config: %w", err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("--config %s: %w", o.ConfigFile, errs.ToAggregate())
	}
	o.config = cfg
	return nil
}

// Validate checks the flags.
func (o *SwapCheckOptions) Validate() error {
	switch {
	case o.File == "" && o.Kubeconfig == "":
		return errors.New("one of -f/--filename and --kubeconfig is required")
	case o.File != "" && o.Kubeconfig != "":
		return errors.New("-f/--filename and --kubeconfig exclude each other")
	}
	return checkOutput("output", o.Output)
}

// Run checks every shoot and reports. It only reads, so an interrupt stops it at once (exit 130)
// wherever it is: reading the kubeconfig or -f, listing the seed, rendering.
func (o *SwapCheckOptions) Run(ctx context.Context, streams IO) error {
	return promptly(ctx, streams, func(out, errOut io.Writer) error {
		return o.run(ctx, IO{In: streams.In, Out: out, ErrOut: errOut})
	})
}

func (o *SwapCheckOptions) run(ctx context.Context, streams IO) error {
	checker, err := o.checker()
	if err != nil {
		return err
	}
	var reports []swapcheck.Report
	if o.Kubeconfig != "" {
		reports, err = o.fromSeed(ctx, checker)
	} else {
		reports, err = o.fromFile(ctx, checker, streams)
	}
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	var b bytes.Buffer
	if o.Output == outputJSON {
		err = swapcheck.WriteJSON(&b, reports)
	} else {
		if len(reports) == 0 {
			b.WriteString("no calico shoots found\n")
		}
		err = swapcheck.WriteText(&b, reports)
	}
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("writing the report: %w", err)}
	}
	if _, err := streams.Out.Write(b.Bytes()); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if !swapcheck.Safe(reports) {
		return &ExitError{Code: ExitFindings}
	}
	return nil
}

func (o *SwapCheckOptions) checker() (*swapcheck.Checker, error) {
	enc, err := pipeline.NewEncoder()
	if err != nil {
		return nil, err
	}
	parser, err := manifestdiff.NewParser()
	if err != nil {
		return nil, err
	}
	vector, err := imagevector.VectorFromEnv(os.LookupEnv, readFileLimited)
	if err != nil {
		return nil, err
	}
	var gates featuregate.FeatureGate
	if o.config != nil {
		if gates, err = features.FromMap(o.config.FeatureGates); err != nil {
			return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("--config featureGates: %w", err)}
		}
	}
	// Each shoot is rendered at the line calico-pilot would give it, with that line's images.
	return &swapcheck.Checker{Encoder: enc, Parser: parser, ControllerConfig: o.config, Settings: pipeline.OperatorSettings(o.config, gates),
		Resolver: imagevector.NewResolver(vector), DataKey: network.ManagedResourceDataKey}, nil
}

func (o *SwapCheckOptions) fromSeed(ctx context.Context, checker *swapcheck.Checker) ([]swapcheck.Report, error) {
	c, err := cliClient("--kubeconfig", o.Kubeconfig, network.AddToScheme)
	if err != nil {
		return nil, err
	}
	shoots, err := seedstate.Assemble(ctx, seedstate.ClientSource{Reader: c}, network.Type, network.ManagedResourceName)
	if err != nil {
		return nil, fmt.Errorf("reading the seed: %w", err)
	}
	return checkSeed(checker, shoots), nil
}

func checkSeed(checker *swapcheck.Checker, shoots []seedstate.Shoot) []swapcheck.Report {
	reports := make([]swapcheck.Report, 0, len(shoots))
	for _, s := range shoots {
		reports = append(reports, checker.Seed(s))
	}
	return reports
}

// fromFile reads Shoots or a seed dump (a file may hold several documents and Lists).
func (o *SwapCheckOptions) fromFile(ctx context.Context, checker *swapcheck.Checker, streams IO) ([]swapcheck.Report, error) {
	data, err := readInput(o.File, streams.In)
	if err != nil {
		return nil, err
	}
	docs, err := decode.SplitDocuments(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", inputName(o.File), err)
	}
	items, err := listItems(docs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", inputName(o.File), err)
	}
	var reports []swapcheck.Report
	seed := &seedstate.Objects{}
	seedObjects := 0
	for _, item := range items {
		switch item.Kind {
		case "Shoot":
			shoot, errs := decode.Shoot(item.JSON)
			if len(errs) > 0 {
				return nil, fmt.Errorf("%s: Shoot %s: %w", inputName(o.File), objectName(item), errs.ToAggregate())
			}
			if rules.NetworkingOf(shoot) != rules.NetworkingCalico {
				// Another networking type, or workerless: not a shoot calico-pilot would serve.
				continue
			}
			reports = append(reports, checker.Shoot(shoot))
		default:
			ok, err := seed.Add(item.Kind, item.JSON)
			if err != nil {
				return nil, fmt.Errorf("%s: %s %s: %w", inputName(o.File), item.Kind, objectName(item), err)
			}
			if ok {
				seedObjects++
			}
		}
	}
	if seedObjects > 0 {
		if len(reports) > 0 {
			return nil, fmt.Errorf("%s: holds both Shoots and seed objects; check them in separate runs", inputName(o.File))
		}
		shoots, err := seedstate.Assemble(ctx, seed, network.Type, network.ManagedResourceName)
		if err != nil {
			return nil, err
		}
		return checkSeed(checker, shoots), nil
	}
	return reports, nil
}

// listItems expands Lists into their items.
func listItems(docs []decode.Document) ([]decode.Document, error) {
	var out []decode.Document
	for _, d := range docs {
		if !isListKind(d.Kind) {
			out = append(out, d)
			continue
		}
		var list struct {
			Items []map[string]any `json:"items"`
		}
		if err := json.Unmarshal(d.JSON, &list); err != nil {
			return nil, fmt.Errorf("document %d: %w", d.Index, err)
		}
		for _, item := range list.Items {
			raw, err := json.Marshal(item)
			if err != nil {
				return nil, err
			}
			sub, err := decode.SplitDocuments(raw)
			if err != nil || len(sub) != 1 {
				return nil, fmt.Errorf("document %d: a list item is not an object with apiVersion and kind", d.Index)
			}
			out = append(out, sub[0])
		}
	}
	return out, nil
}

func isListKind(kind string) bool {
	return strings.HasSuffix(kind, "List")
}
