package calicotls

import (
	"context"
	"encoding/base64"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/calicotls"
	"github.com/calico-pilot/calico-pilot/internal/calicotls/calicotlstest"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

const (
	day          = 24 * time.Hour
	fieldManager = "calico-pilot"
)

// create creates obj, failing the test on an error.
func create(t *testing.T, obj client.Object) {
	t.Helper()
	if err := cl.Create(context.Background(), obj); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating %s: %v", obj.GetName(), err)
	}
}

// versions are the resourceVersions of the table's Secrets and ConfigMaps and of calico-pilot's CA.
func versions(t *testing.T, tbl calicotls.Table) map[string]string {
	t.Helper()
	out := map[string]string{}
	get := func(kind, name string, obj client.Object) {
		if err := cl.Get(context.Background(), client.ObjectKey{Namespace: tbl.Namespace, Name: name}, obj); err == nil {
			out[kind+"/"+name] = obj.GetResourceVersion()
		} else if !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
	}
	for _, p := range tbl.Pairs {
		get("Secret", p.Secret, &corev1.Secret{})
	}
	get("Secret", calicotls.CASecret, &corev1.Secret{})
	for _, b := range tbl.Bundles {
		if !b.APIService {
			get("ConfigMap", b.Name, &corev1.ConfigMap{})
		}
	}
	return out
}

// execute does what the caller of a plan does with its steps (without workloads to roll): it writes
// each step and puts the APIService's caBundle into the APIService.
func execute(t *testing.T, r *calicotls.Result) {
	t.Helper()
	ctx := context.Background()
	for _, s := range r.Steps {
		if err := calicotls.WriteStep(ctx, cl, s, fieldManager); err != nil {
			t.Fatalf("step %q: %v", s.Title, err)
		}
		if s.APIServiceCABundle != nil {
			patch := `{"spec":{"caBundle":"` + base64.StdEncoding.EncodeToString(s.APIServiceCABundle) + `"}}`
			api := &unstructured.Unstructured{}
			api.SetAPIVersion("apiregistration.k8s.io/v1")
			api.SetKind("APIService")
			api.SetName(calicotls.APIServiceName)
			if err := cl.Patch(ctx, api, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
				t.Fatalf("step %q: the APIService's caBundle: %v", s.Title, err)
			}
		}
	}
}

func plan(t *testing.T, tbl calicotls.Table, now time.Time) (calicotls.Input, *calicotls.Result) {
	t.Helper()
	in, err := calicotls.Read(context.Background(), cl, tbl)
	if err != nil {
		t.Fatal(err)
	}
	r, err := calicotls.Plan(now, in)
	if err != nil {
		t.Fatal(err)
	}
	return in, r
}

// TestOperatorMaterialRenewal: the operator's material as it runs is read back as written, adopted
// (only calico-pilot's copy of the CA and the APIService's caBundle are written), and a renewal
// 100 days later writes only the Secret that is due; the bundles read back trust the new certificate.
func TestOperatorMaterialRenewal(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, cl, "calicotls-", nil)
	tbl := calicotls.TigeraOperatorTable(calicotls.TableOptions{Namespace: ns, ClusterDomain: "cluster.local", TyphaTLS: true, APIServer: true, Goldmane: true, Whisker: true})
	base := time.Now().UTC().Truncate(time.Second)

	// The operator's material: its CA in tigera-operator, five leaves (goldmane's 600 days older than
	// the others), three bundles and the APIService.
	create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: calicotls.OperatorNamespace}})
	ca := calicotlstest.OperatorCA(t, "tigera-operator-signer@1", base.Add(-800*day))
	create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: calicotls.OperatorNamespace, Name: calicotls.OperatorCASecret}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{"tls.crt": ca.CertPEM, "tls.key": ca.KeyPEM}})
	var apiserverCert []byte
	for _, p := range tbl.Pairs {
		from := base.Add(-100 * day)
		if p.Secret == calicotls.GoldmaneKeyPair {
			from = from.Add(-600 * day)
		}
		kp := calicotlstest.OperatorLeaf(t, &ca, append(slices.Clone(p.DNSNames), p.IPAddresses...), from, 825*day)
		create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: p.Secret}, Type: corev1.SecretTypeTLS,
			Data: map[string][]byte{"tls.crt": kp.CertPEM, "tls.key": kp.KeyPEM}})
		if p.Secret == calicotls.APIServerCertsSecret {
			apiserverCert = kp.CertPEM
		}
	}
	for _, b := range tbl.Bundles {
		if b.APIService {
			continue
		}
		create(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: b.Name},
			Data: map[string]string{"tigera-ca-bundle.crt": string(ca.CertPEM), "ca.crt": string(ca.CertPEM), "ca-bundle.crt": ""}})
	}
	api := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": calicotls.APIServiceName},
		"spec": map[string]any{
			"group": "projectcalico.org", "version": "v3", "groupPriorityMinimum": int64(1500), "versionPriority": int64(200),
			"service":  map[string]any{"name": "calico-api", "namespace": ns},
			"caBundle": base64.StdEncoding.EncodeToString(apiserverCert),
		},
	}}
	create(t, api)
	t.Cleanup(func() {
		// An APIService without its server would fail discovery for whatever runs after.
		_ = cl.Delete(context.Background(), api)
	})

	// Read back: the operator's material as written.
	in, r := plan(t, tbl, base.Add(time.Hour))
	if string(in.OperatorCA.KeyPEM) != string(ca.KeyPEM) || in.CASecret != nil || len(in.Secrets) != 5 || len(in.ConfigMaps) != 3 ||
		!in.APIServiceFound || string(in.APIServiceCABundle) != string(apiserverCert) {
		t.Fatalf("read: operator CA %v, CA Secret %v, %d Secrets, %d ConfigMaps, APIService %v", !in.OperatorCA.IsZero(), in.CASecret != nil, len(in.Secrets), len(in.ConfigMaps), in.APIServiceFound)
	}
	if r.CA.Source != calicotls.CAAdopted {
		t.Errorf("CA %+v", r.CA)
	}
	before := versions(t, tbl)
	execute(t, r)
	after := versions(t, tbl)
	if diff := cmp.Diff([]string{"Secret/" + calicotls.CASecret}, changed(before, after)); diff != "" {
		t.Errorf("the adoption wrote (-want +got):\n%s", diff)
	}
	copied := &corev1.Secret{}
	if err := cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: calicotls.CASecret}, copied); err != nil {
		t.Fatal(err)
	}
	if string(copied.Data["tls.key"]) != string(ca.KeyPEM) || copied.Type != corev1.SecretTypeTLS {
		t.Errorf("calico-pilot's copy of the CA: type %q, the operator's key %v", copied.Type, string(copied.Data["tls.key"]) == string(ca.KeyPEM))
	}
	if _, again := plan(t, tbl, base.Add(time.Hour)); len(again.Steps) != 0 {
		t.Fatalf("steps after the adoption: %v", again.Steps)
	}

	// 100 days later goldmane's certificate has 25 days left: only its Secret is written.
	now := base.Add(100 * day)
	_, r = plan(t, tbl, now)
	var report strings.Builder
	r.Report(&report, ns)
	for _, want := range []string{"goldmane-key-pair: issued now (expires ", "typha-certs: valid until " + base.Add(725*day).Format(time.DateOnly)} {
		if !strings.Contains(report.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, report.String())
		}
	}
	before = versions(t, tbl)
	execute(t, r)
	after = versions(t, tbl)
	if diff := cmp.Diff([]string{"Secret/" + calicotls.GoldmaneKeyPair}, changed(before, after)); diff != "" {
		t.Errorf("the renewal wrote (-want +got):\n%s", diff)
	}
	in, again := plan(t, tbl, now)
	if len(again.Steps) != 0 {
		t.Errorf("steps after the renewal: %v", again.Steps)
	}
	goldmane := in.Secrets[calicotls.GoldmaneKeyPair]
	if goldmane.Type != corev1.SecretTypeTLS {
		t.Errorf("goldmane-key-pair type %q", goldmane.Type)
	}
	for _, via := range []string{calicotls.TigeraCABundle, calicotls.WhiskerCABundle} {
		if err := calicotls.Trusts([]byte(in.ConfigMaps[via].Data["tigera-ca-bundle.crt"]), goldmane.Data["tls.crt"], now); err != nil {
			t.Errorf("%s read back does not trust the new goldmane certificate: %v", via, err)
		}
	}
	if !maps.Equal(again.Checksums, r.Checksums) {
		t.Error("the checksums read back differ from the plan's")
	}
}

// changed are the objects whose resourceVersion differs, sorted.
func changed(before, after map[string]string) []string {
	var out []string
	for k, v := range after {
		if before[k] != v {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
