package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/apiserverendpoints"
	"github.com/calico-pilot/calico-pilot/internal/controller/network"
	"github.com/calico-pilot/calico-pilot/internal/decode"
	"github.com/calico-pilot/calico-pilot/internal/features"
	"github.com/calico-pilot/calico-pilot/internal/managedresource"
	"github.com/calico-pilot/calico-pilot/internal/mrdata"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// The seed-side facts the demo invents: the load balancer in front of the shoot's kube-apiserver
// is published as an A record (internal domain) and as a CNAME to its hostname (external domain),
// which the loopback DNS server resolves.
const (
	internalAddress = "192.0.2.34"
	lbHostname      = "api-lb.seed.example.net"
	lbAddress       = "198.51.100.7"
	lbTTL           = 60
)

// Options configure a demo run.
type Options struct {
	// ShootFile is the example Shoot (examples/shoot.yaml).
	ShootFile string
	// Out receives the summary.
	Out io.Writer
	// Timeout bounds the wait for the Network to succeed.
	Timeout time.Duration
	// UserAgent identifies the controller's API clients.
	UserAgent string
}

// DefaultOptions returns the options `make demo` uses.
func DefaultOptions(out io.Writer) Options {
	return Options{
		ShootFile: filepath.Join(testenv.RepoRoot(), "examples", "shoot.yaml"),
		Out:       out,
		Timeout:   2 * time.Minute,
		UserAgent: "calico-pilot/demo",
	}
}

// Run runs the demo and prints the summary; it returns an error when anything fails, including a
// Network that ends in Error.
func Run(ctx context.Context, o Options) error {
	data, err := os.ReadFile(o.ShootFile)
	if err != nil {
		return fmt.Errorf("reading example shoot: %w", err)
	}
	shoot, errs := decode.Shoot(data)
	if len(errs) > 0 {
		return fmt.Errorf("decoding example shoot %s: %w", o.ShootFile, errs.ToAggregate())
	}
	if shoot.Spec.Networking == nil || shoot.Spec.Networking.Pods == nil || shoot.Spec.Networking.Services == nil {
		return fmt.Errorf("example shoot %s: spec.networking.pods and .services are needed for the Network", o.ShootFile)
	}

	fmt.Fprintf(o.Out, "Starting a local seed control plane (kube-apiserver + etcd from %s) ...\n", testenv.AssetsDir())
	cp, err := testenv.Start(testenv.Options{
		CRDDirectoryPaths: testenv.CRDDirectories(testenv.GardenerCRDs, testenv.MonitoringCRDs),
	})
	if err != nil {
		return err
	}
	defer func() { _ = cp.Stop() }()
	dnsServer, err := startDNS(fmt.Sprintf("%s. %d IN A %s", lbHostname, lbTTL, lbAddress))
	if err != nil {
		return err
	}
	defer func() { _ = dnsServer.stop() }()

	scheme, err := network.NewScheme()
	if err != nil {
		return err
	}
	c, err := client.New(cp.Config, client.Options{Scheme: scheme})
	if err != nil {
		return fmt.Errorf("building demo client: %w", err)
	}
	ns := technicalID(shoot)
	if err := createShootObjects(ctx, c, ns, shoot, data); err != nil {
		return err
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	writes := testenv.NewWriteCounter()
	done, err := startController(ctx, cp, scheme, dnsServer.addr, o.UserAgent, writes)
	if err != nil {
		return err
	}
	key := client.ObjectKey{Namespace: ns, Name: shoot.Name}
	started := time.Now()
	n, err := waitForNetwork(ctx, c, key, o.Timeout)
	elapsed := time.Since(started)
	var unchanged string
	if err == nil {
		unchanged, err = reconcileAgain(ctx, c, key, writes, o.Timeout)
	}
	cancel()
	if cerr := <-done; cerr != nil && err == nil {
		err = fmt.Errorf("controller: %w", cerr)
	}
	if err != nil {
		return err
	}
	if err := summarize(context.Background(), o.Out, c, shoot, n, elapsed); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "Reconciled again unchanged (%s=%s): writes %s; no Secret, no ManagedResource\n",
		extensionsv1alpha1.AnnotationOperation, extensionsv1alpha1.OperationReconcile, unchanged)
	return nil
}

// reconcileAgain annotates the Network as the gardenlet does on every shoot reconcile, waits for the
// controller to finish (annotation removed, Succeeded written) and returns the write
// requests it sent; a Secret or ManagedResource write is an error (an unchanged Network writes
// nothing: the content-hashed Secret is already stored, docs/controller.md).
func reconcileAgain(ctx context.Context, c client.Client, key client.ObjectKey, writes *testenv.WriteCounter, timeout time.Duration) (string, error) {
	before := writes.Snapshot()
	n := &extensionsv1alpha1.Network{}
	n.Namespace, n.Name = key.Namespace, key.Name
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, extensionsv1alpha1.AnnotationOperation, extensionsv1alpha1.OperationReconcile)
	if err := c.Patch(ctx, n, client.RawPatch("application/merge-patch+json", patch)); err != nil {
		return "", fmt.Errorf("annotating Network: %w", err)
	}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, key, n); err != nil {
			return false, err
		}
		diff := writes.Since(before)
		_, annotated := n.Annotations[extensionsv1alpha1.AnnotationOperation]
		lo := n.Status.LastOperation
		return !annotated && diff["networks/status"] >= 1 && lo != nil && lo.State == gardencorev1beta1.LastOperationStateSucceeded, nil
	})
	if err != nil {
		return "", fmt.Errorf("waiting for the second reconcile: %w", err)
	}
	diff := writes.Since(before)
	// Events are sent asynchronously by the events library; leave them out of the count.
	delete(diff, "events")
	text := formatWrites(diff)
	if diff["secrets"] > 0 || diff["managedresources"] > 0 {
		return "", fmt.Errorf("an unchanged reconcile wrote %s", text)
	}
	return text, nil
}

// technicalID is the control-plane namespace Gardener gives a new shoot: shoot--<project>--<name>,
// the project being the shoot namespace without its garden- prefix.
func technicalID(shoot *gardencorev1beta1.Shoot) string {
	return "shoot--" + strings.TrimPrefix(shoot.Namespace, "garden-") + "--" + shoot.Name
}

// createShootObjects creates what the gardenlet creates in the seed before the Network is
// reconciled: the control-plane namespace, the Cluster (with the whole Shoot as raw JSON), the
// kube-apiserver DNSRecords and the Network.
func createShootObjects(ctx context.Context, c client.Client, ns string, shoot *gardencorev1beta1.Shoot, shootYAML []byte) error {
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{extensionsv1alpha1.LabelGardenerRole: extensionsv1alpha1.GardenerRoleShoot}}}); err != nil {
		return fmt.Errorf("creating namespace %s: %w", ns, err)
	}
	shootJSON, err := yaml.YAMLToJSON(shootYAML)
	if err != nil {
		return fmt.Errorf("converting example shoot to JSON: %w", err)
	}
	var whole map[string]any
	if err := json.Unmarshal(shootJSON, &whole); err != nil {
		return fmt.Errorf("reading example shoot: %w", err)
	}
	whole["status"] = map[string]any{"technicalID": ns, "hibernated": false}
	if shootJSON, err = json.Marshal(whole); err != nil {
		return fmt.Errorf("encoding shoot for the Cluster: %w", err)
	}
	cluster := &extensionsv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: ns},
		Spec: extensionsv1alpha1.ClusterSpec{
			CloudProfile: runtime.RawExtension{Raw: []byte(`{"apiVersion":"core.gardener.cloud/v1beta1","kind":"CloudProfile","metadata":{"name":"azure"}}`)},
			Shoot:        runtime.RawExtension{Raw: shootJSON},
		},
	}
	if err := c.Create(ctx, cluster); err != nil {
		return fmt.Errorf("creating Cluster %s: %w", ns, err)
	}
	for _, r := range []struct{ role, recordType, value string }{
		{extensionsv1alpha1.DNSRecordRoleInternal, "A", internalAddress},
		{extensionsv1alpha1.DNSRecordRoleExternal, "CNAME", lbHostname},
	} {
		rec := &extensionsv1alpha1.DNSRecord{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: shoot.Name + "-" + r.role,
				Labels: map[string]string{
					extensionsv1alpha1.LabelGardenerRole:  extensionsv1alpha1.GardenerRoleControlPlane,
					extensionsv1alpha1.LabelDNSRecordRole: r.role,
				}},
			Spec: extensionsv1alpha1.DNSRecordSpec{
				DefaultSpec: extensionsv1alpha1.DefaultSpec{Type: "local"},
				SecretRef:   corev1.SecretReference{Name: "dnsrecord-" + shoot.Name + "-" + r.role},
				Name:        "api." + shoot.Name + "." + r.role + ".example.com",
				RecordType:  extensionsv1alpha1.DNSRecordType(r.recordType),
				Values:      []string{r.value},
				TTL:         ptr.To[int64](120),
			},
		}
		if err := c.Create(ctx, rec); err != nil {
			return fmt.Errorf("creating DNSRecord %s: %w", rec.Name, err)
		}
	}
	nw := shoot.Spec.Networking
	var families []gardencorev1beta1.IPFamily
	for _, f := range nw.IPFamilies {
		families = append(families, gardencorev1beta1.IPFamily(f))
	}
	var pc *runtime.RawExtension
	if nw.ProviderConfig != nil {
		pc = &runtime.RawExtension{Raw: nw.ProviderConfig.Raw}
		if raw, err := yaml.YAMLToJSON(nw.ProviderConfig.Raw); err == nil {
			pc.Raw = raw
		}
	}
	net := &extensionsv1alpha1.Network{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: shoot.Name, Annotations: map[string]string{
			extensionsv1alpha1.AnnotationOperation: extensionsv1alpha1.OperationReconcile,
			extensionsv1alpha1.AnnotationTimestamp: time.Now().UTC().Format(time.RFC3339Nano),
		}},
		Spec: extensionsv1alpha1.NetworkSpec{
			DefaultSpec: extensionsv1alpha1.DefaultSpec{Type: calicov1alpha1.NetworkType, ProviderConfig: pc},
			PodCIDR:     *nw.Pods, ServiceCIDR: *nw.Services, IPFamilies: families,
		},
	}
	if err := c.Create(ctx, net); err != nil {
		return fmt.Errorf("creating Network: %w", err)
	}
	return nil
}

// startController runs the production controller (decoder, renderer, DNSRecord address source)
// in-process, without leader election, metrics or probes.
func startController(ctx context.Context, cp *testenv.ControlPlane, scheme *runtime.Scheme, dnsAddr, userAgent string, writes *testenv.WriteCounter) (<-chan error, error) {
	cfg := *cp.Config
	cfg.UserAgent = userAgent
	cfg.Wrap(writes.Wrap)
	gates, err := features.FromMap(nil)
	if err != nil {
		return nil, err
	}
	resolver, err := apiserverendpoints.NewDNSResolver(apiserverendpoints.DNSResolverConfig{Servers: []string{dnsAddr}, Timeout: time.Second})
	if err != nil {
		return nil, err
	}
	opts := network.DefaultOptions()
	opts.UserAgent = userAgent
	mgr, err := network.NewManager(network.Setup{
		RestConfig: &cfg,
		Manager: ctrl.Options{
			Scheme:                 scheme,
			Logger:                 logr.Discard(),
			Metrics:                metricsserver.Options{BindAddress: "0"},
			HealthProbeBindAddress: "0",
		},
		Addresses: func(c client.Client) (network.AddressSource, error) {
			return network.NewAddressSource(&apiserverendpoints.Source{Reader: c, Resolver: resolver}), nil
		},
		FeatureGates: gates,
		Options:      opts,
	})
	if err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return done, nil
}

// waitForNetwork waits until the Network's last operation succeeded; an Error ends the wait with
// the Network's lastError.
func waitForNetwork(ctx context.Context, c client.Client, key client.ObjectKey, timeout time.Duration) (*extensionsv1alpha1.Network, error) {
	var n *extensionsv1alpha1.Network
	var failed error
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		n = &extensionsv1alpha1.Network{}
		if err := c.Get(ctx, key, n); err != nil {
			return false, err
		}
		lo := n.Status.LastOperation
		switch {
		case lo == nil:
			return false, nil
		case lo.State == gardencorev1beta1.LastOperationStateSucceeded:
			return true, nil
		case lo.State == gardencorev1beta1.LastOperationStateError && n.Status.LastError != nil:
			failed = errors.New(n.Status.LastError.Description)
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return nil, fmt.Errorf("waiting for Network %s to succeed: %w", key, err)
	}
	if failed != nil {
		return nil, fmt.Errorf("network %s failed: %w", key, failed)
	}
	return n, nil
}

// summarize prints what was deployed: the Network's outcome, the ManagedResource and its objects
// by kind, the key settings, the GlobalNetworkSet and the seed monitoring objects.
func summarize(ctx context.Context, out io.Writer, c client.Client, shoot *gardencorev1beta1.Shoot, n *extensionsv1alpha1.Network, elapsed time.Duration) error {
	st, err := readStored(ctx, c, n.Namespace)
	if err != nil {
		return err
	}
	nw := shoot.Spec.Networking
	fmt.Fprintf(out, "\nShoot %s/%s: Kubernetes %s, %v, nodes %s, pods %s, services %s\n",
		shoot.Namespace, shoot.Name, shoot.Spec.Kubernetes.Version, nw.IPFamilies, deref(nw.Nodes), deref(nw.Pods), deref(nw.Services))
	fmt.Fprintf(out, "Network %s/%s: %s %s in %s: %q\n", n.Namespace, n.Name, n.Status.LastOperation.Type, n.Status.LastOperation.State,
		elapsed.Round(10*time.Millisecond), n.Status.LastOperation.Description)
	fmt.Fprintf(out, "ManagedResource %s -> immutable Secret %s (%d objects, %d bytes of JSON stored as %d: the CRDs Brotli-compressed)\n\n",
		st.name, st.secret, len(st.objs), st.jsonBytes, st.storedBytes)
	if err := writeKindCounts(out, st.objs); err != nil {
		return err
	}
	if err := writeKeySettings(out, n, st.objs); err != nil {
		return err
	}
	if err := writeGlobalNetworkSet(ctx, out, c, n.Namespace, st.objs); err != nil {
		return err
	}
	return writeSeedObjects(ctx, out, c, n.Namespace)
}

// stored is what the shoot ManagedResource holds.
type stored struct {
	// name and secret are the ManagedResource's and its content secret's names.
	name, secret string
	// objs are the objects of every key.
	objs []object
	// storedBytes is the size of the secret's data, jsonBytes of its plain (uncompressed) streams.
	storedBytes, jsonBytes int
}

// readStored reads the shoot ManagedResource, its one content secret and the objects in it.
func readStored(ctx context.Context, c client.Client, namespace string) (stored, error) {
	mr := &resourcesv1alpha1.ManagedResource{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: network.ManagedResourceName}, mr); err != nil {
		return stored{}, fmt.Errorf("reading ManagedResource: %w", err)
	}
	if len(mr.Spec.SecretRefs) != 1 {
		return stored{}, fmt.Errorf("ManagedResource %s has %d secretRefs, want 1", mr.Name, len(mr.Spec.SecretRefs))
	}
	secret := &corev1.Secret{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: mr.Spec.SecretRefs[0].Name}, secret); err != nil {
		return stored{}, fmt.Errorf("reading ManagedResource secret: %w", err)
	}
	// The secret holds the plain stream and the Brotli-compressed CRDs (mrdata.CRDsKey).
	plain, err := mrdata.Plain(secret.Data)
	if err != nil {
		return stored{}, err
	}
	st := stored{name: mr.Name, secret: secret.Name}
	for _, key := range []string{network.ManagedResourceDataKey, mrdata.CRDsKey} {
		part, err := decodeStream(plain[key])
		if err != nil {
			return stored{}, fmt.Errorf("key %s: %w", key, err)
		}
		st.objs = append(st.objs, part...)
		st.storedBytes += len(secret.Data[key])
		st.jsonBytes += len(plain[key])
	}
	return st, nil
}

// writeKindCounts prints how many objects of each kind were deployed.
func writeKindCounts(out io.Writer, objs []object) error {
	counts := map[string]int{}
	for _, o := range objs {
		counts[o.kind]++
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tCOUNT")
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		fmt.Fprintf(tw, "%s\t%d\n", k, counts[k])
	}
	return tw.Flush()
}

// writeKeySettings prints the release, backend, overlay, MTU, typha and image deployed (from the
// providerStatus and the manifest) and the Network's status.
func writeKeySettings(out io.Writer, n *extensionsv1alpha1.Network, objs []object) error {
	var ps struct {
		OverlayEnabled *bool    `json:"overlayEnabled"`
		Backend        *string  `json:"backend"`
		IPFamilies     []string `json:"ipFamilies"`
		CalicoVersion  string   `json:"calicoVersion"`
		CRDVersion     string   `json:"calicoCRDVersion"`
	}
	if n.Status.ProviderStatus != nil {
		if err := json.Unmarshal(n.Status.ProviderStatus.Raw, &ps); err != nil {
			return fmt.Errorf("reading providerStatus: %w", err)
		}
	}
	cfg := objectByName(objs, "ConfigMap", "calico-config")
	data, _ := cfg["data"].(map[string]any)
	fmt.Fprintf(out, "\nKey settings: Calico %s (CRDs of %s; providerStatus), backend %s, overlay %s, veth MTU %v, typha %s, calico-node image %s\n",
		ps.CalicoVersion, ps.CRDVersion, deref(ps.Backend), onOff(ps.OverlayEnabled), data["veth_mtu"], typha(data), nodeImage(objs))
	fmt.Fprintf(out, "Network status: ipFamilies %v, conditions %s\n", n.Status.IPFamilies, conditions(n))
	return nil
}

// writeGlobalNetworkSet prints the gardener-kube-apiserver GlobalNetworkSet and the DNSRecords its
// addresses come from.
func writeGlobalNetworkSet(ctx context.Context, out io.Writer, c client.Client, namespace string, objs []object) error {
	gns := objectByName(objs, "GlobalNetworkSet", "gardener-kube-apiserver")
	if gns == nil {
		fmt.Fprintln(out, "GlobalNetworkSet gardener-kube-apiserver: not deployed")
		return nil
	}
	spec, _ := gns["spec"].(map[string]any)
	md, _ := gns["metadata"].(map[string]any)
	fmt.Fprintf(out, "GlobalNetworkSet gardener-kube-apiserver: nets %v, labels %v\n", spec["nets"], md["labels"])
	var recs extensionsv1alpha1.DNSRecordList
	if err := c.List(ctx, &recs, client.InNamespace(namespace)); err != nil {
		return fmt.Errorf("listing DNSRecords: %w", err)
	}
	for _, r := range recs.Items {
		fmt.Fprintf(out, "  from DNSRecord %s (role %s): %s %v\n", r.Name, r.Labels[extensionsv1alpha1.LabelDNSRecordRole], r.Spec.RecordType, r.Spec.Values)
	}
	fmt.Fprintf(out, "  (CNAME values are resolved by the nameserver the controller is configured with; here a DNS server on loopback answers %s with %s, TTL %ds)\n",
		lbHostname, lbAddress, lbTTL)
	return nil
}

// writeSeedObjects prints the objects of the seed ManagedResource. The seed's resource manager (not
// part of the demo) applies them to the control-plane namespace.
func writeSeedObjects(ctx context.Context, out io.Writer, c client.Client, namespace string) error {
	seedMR := &resourcesv1alpha1.ManagedResource{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: network.SeedManagedResourceName}, seedMR); err != nil {
		return fmt.Errorf("reading the seed ManagedResource: %w", err)
	}
	seedData, err := managedresource.ReadData(ctx, c, namespace, network.SeedManagedResourceName)
	if err != nil {
		return err
	}
	var seed []string
	for _, stream := range seedData {
		seedObjs, err := decodeStream(stream)
		if err != nil {
			return err
		}
		for _, o := range seedObjs {
			seed = append(seed, o.kind+" "+o.name)
		}
	}
	sort.Strings(seed)
	class := ""
	if seedMR.Spec.Class != nil {
		class = *seedMR.Spec.Class
	}
	fmt.Fprintf(out, "Seed ManagedResource %s (class %s, for the seed's resource manager): %s\n", seedMR.Name, class, strings.Join(seed, ", "))
	return nil
}

type object struct {
	kind, name string
	raw        map[string]any
}

// decodeStream reads the stored stream: one compact JSON object per line.
func decodeStream(stream []byte) ([]object, error) {
	var out []object
	for i, line := range strings.Split(strings.TrimSpace(string(stream)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			return nil, fmt.Errorf("stored manifest line %d: %w", i+1, err)
		}
		md, _ := m["metadata"].(map[string]any)
		kind, _ := m["kind"].(string)
		name, _ := md["name"].(string)
		out = append(out, object{kind: kind, name: name, raw: m})
	}
	return out, nil
}

func objectByName(objs []object, kind, name string) map[string]any {
	for _, o := range objs {
		if o.kind == kind && o.name == name {
			return o.raw
		}
	}
	return nil
}

func nodeImage(objs []object) string {
	ds := objectByName(objs, "DaemonSet", "calico-node")
	spec, _ := ds["spec"].(map[string]any)
	tmpl, _ := spec["template"].(map[string]any)
	pod, _ := tmpl["spec"].(map[string]any)
	containers, _ := pod["containers"].([]any)
	for _, c := range containers {
		cm, _ := c.(map[string]any)
		if cm["name"] == "calico-node" {
			img, _ := cm["image"].(string)
			return img
		}
	}
	return "(none)"
}

func typha(data map[string]any) string {
	if data["typha_service_name"] == "none" {
		return "off"
	}
	return "on"
}

func conditions(n *extensionsv1alpha1.Network) string {
	parts := make([]string, 0, len(n.Status.Conditions))
	for _, c := range n.Status.Conditions {
		parts = append(parts, fmt.Sprintf("%s=%s", c.Type, c.Status))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

func onOff(b *bool) string {
	switch {
	case b == nil:
		return "unknown"
	case *b:
		return "on"
	default:
		return "off"
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
