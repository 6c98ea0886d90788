package controller

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/managedresource"
	"github.com/calico-pilot/calico-pilot/internal/overlayswitch"
)

// TestStore exercises internal/managedresource against the API server: what Apply writes, that it
// keeps foreign metadata, drops stale references, leaves secrets an interrupted write left behind to Delete,
// refuses a secret whose content does not match its name, and that Delete removes everything.
//
// It runs with the plain client and with the one the controller uses, whose content secrets are
// created without decoding the API server's answer (managedresource.WithLeanSecretCreates).
func TestStore(t *testing.T) {
	t.Run("client", func(t *testing.T) { testStore(t, "") })
	t.Run("lean secret creates, protobuf", func(t *testing.T) { testStore(t, "default") })
	// The reference chart's clientConnection: JSON both ways.
	t.Run("lean secret creates, JSON", func(t *testing.T) { testStore(t, "application/json") })
}

// testStore runs the store scenario with the plain client (lean "") or a lean one whose config
// has contentType lean ("default": none set).
func testStore(t *testing.T, lean string) {
	ctx := context.Background()
	e := newTestEnv(t, nil)
	c := e.c
	if lean != "" {
		cfg := rest.CopyConfig(seedCP.Config)
		if lean != "default" {
			cfg.ContentType, cfg.AcceptContentTypes = lean, lean
		}
		var err error
		if c, err = managedresource.WithLeanSecretCreates(e.c, cfg); err != nil {
			t.Fatal(err)
		}
		if _, ok := c.(managedresource.SecretCreator); !ok {
			t.Fatal("WithLeanSecretCreates returned no SecretCreator")
		}
	}
	obj := managedresource.Object{Namespace: e.ns, Name: "store-test", Origin: "test-origin"}
	dataA := map[string][]byte{"config.yaml": []byte(`{"kind":"A"}`)}
	dataB := map[string][]byte{"config.yaml": []byte(`{"kind":"B"}`)}

	current := func() *resourcesv1alpha1.ManagedResource {
		t.Helper()
		mr, err := managedresource.Get(ctx, e.c, e.ns, "store-test")
		if err != nil {
			t.Fatal(err)
		}
		return mr
	}
	res, err := managedresource.Apply(ctx, c, e.c, current(), obj, dataA)
	if err != nil || !res.Changed {
		t.Fatalf("first Apply: %+v, %v", res, err)
	}
	if want := managedresource.SecretName("store-test", dataA); res.SecretName != want {
		t.Errorf("secret %s, want %s", res.SecretName, want)
	}
	stored := &corev1.Secret{}
	if err := e.c.Get(ctx, client.ObjectKey{Namespace: e.ns, Name: res.SecretName}, stored); err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(stored.Data, dataA) || stored.Immutable == nil || !*stored.Immutable ||
		stored.Labels["resources.gardener.cloud/garbage-collectable-reference"] != "true" {
		t.Errorf("stored secret: data %q, immutable %v, labels %v", stored.Data, stored.Immutable, stored.Labels)
	}
	res, err = managedresource.Apply(ctx, c, e.c, current(), obj, dataA)
	if err != nil || res.Changed {
		t.Errorf("Apply of unchanged data: %+v, %v, want no change", res, err)
	}
	// A caller whose cache has not seen the ManagedResource yet: AlreadyExists, then read and
	// updated (here to the same content: the write is sent, nothing breaks).
	if res, err := managedresource.Apply(ctx, c, e.c, nil, obj, dataA); err != nil || res.SecretName != managedresource.SecretName("store-test", dataA) {
		t.Errorf("Apply with a cache behind the API server: %+v, %v", res, err)
	}

	// Foreign metadata stays; a stale reference annotation goes.
	mr := &resourcesv1alpha1.ManagedResource{}
	if err := e.c.Get(ctx, client.ObjectKey{Namespace: e.ns, Name: "store-test"}, mr); err != nil {
		t.Fatal(err)
	}
	mr.Labels["team"] = "networking"
	mr.Annotations["note"] = "kept"
	mr.Annotations["reference.resources.gardener.cloud/secret-deadbeef"] = "gone-secret"
	if err := e.c.Update(ctx, mr); err != nil {
		t.Fatal(err)
	}
	// A secret an interrupted write left behind (labelled for this ManagedResource, not referenced).
	orphan := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: "managedresource-store-test-orphan",
		Labels: map[string]string{"calico-pilot.gardener.cloud/managed-resource": "store-test"}}}
	if err := e.c.Create(ctx, orphan); err != nil {
		t.Fatal(err)
	}
	old := res.SecretName
	res, err = managedresource.Apply(ctx, c, e.c, current(), obj, dataB)
	if err != nil || !res.Changed {
		t.Fatalf("Apply of new data: %+v, %v", res, err)
	}
	// Apply deletes what the ManagedResource referenced; the orphan waits for Delete (or the
	// resource manager's collector: it is garbage-collectable) so that a change costs no list.
	if diff := cmp.Diff([]string{old}, res.DeletedSecrets, cmpSorted()); diff != "" {
		t.Errorf("deleted secrets (-want +got):\n%s", diff)
	}
	if err := e.c.Get(ctx, client.ObjectKey{Namespace: e.ns, Name: "store-test"}, mr); err != nil {
		t.Fatal(err)
	}
	if mr.Labels["team"] != "networking" || mr.Labels["origin"] != "test-origin" || mr.Annotations["note"] != "kept" {
		t.Errorf("metadata not kept: labels %v annotations %v", mr.Labels, mr.Annotations)
	}
	for k, v := range mr.Annotations {
		if strings.HasPrefix(k, "reference.resources.gardener.cloud/secret-") && v != res.SecretName {
			t.Errorf("stale reference annotation %s=%s", k, v)
		}
	}

	// A secret whose content does not match its content-hash name is never served.
	tampered := managedresource.SecretName("store-test", map[string][]byte{"config.yaml": []byte(`{"kind":"C"}`)})
	if err := e.c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: tampered}, Data: map[string][]byte{"config.yaml": []byte("other")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := managedresource.Apply(ctx, c, e.c, current(), obj, map[string][]byte{"config.yaml": []byte(`{"kind":"C"}`)}); err == nil ||
		!strings.Contains(err.Error(), "exists with different content than its name promises") {
		t.Errorf("Apply over a tampered secret: %v, want a content mismatch error", err)
	}

	if err := managedresource.Delete(ctx, e.c, e.c, obj); err != nil {
		t.Fatal(err)
	}
	if names := e.secretNames(); slices.Contains(names, res.SecretName) || slices.Contains(names, orphan.Name) {
		t.Errorf("secrets after Delete: %v", names)
	}
	if err := e.c.Get(ctx, client.ObjectKey{Namespace: e.ns, Name: "store-test"}, mr); err == nil {
		t.Error("ManagedResource still exists after Delete")
	}
}

func cmpSorted() cmp.Option {
	return cmp.Transformer("sorted", func(in []string) []string {
		out := slices.Clone(in)
		slices.Sort(out)
		return out
	})
}

// TestShootAccessSecret: the shoot kubeconfig comes from gardener-internal, else gardener; one that
// would run a program or impersonate is refused; a missing secret is an error naming both names.
func TestShootAccessSecret(t *testing.T) {
	ctx := context.Background()
	kc := func(server, user string) []byte {
		return []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: " + server +
			"\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\nusers:\n- name: u\n  user:\n" + user)
	}
	tests := []struct {
		name       string
		secrets    map[string][]byte
		wantServer string
		wantErr    string
	}{
		{name: "internal preferred", secrets: map[string][]byte{
			"gardener-internal": kc("https://internal.example:443", "    token: a\n"),
			"gardener":          kc("https://external.example:443", "    token: b\n"),
		}, wantServer: "https://internal.example:443"},
		{name: "external fallback", secrets: map[string][]byte{"gardener": kc("https://external.example:443", "    token: b\n")}, wantServer: "https://external.example:443"},
		{name: "exec refused", secrets: map[string][]byte{"gardener-internal": kc("https://internal.example:443", "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: /bin/sh\n")},
			wantErr: `user "u" uses exec, auth-provider or impersonation, which are not allowed`},
		{name: "missing", secrets: nil, wantErr: "/gardener-internal (or gardener)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t, nil)
			for name, data := range tt.secrets {
				s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: name}, Data: map[string][]byte{"kubeconfig": data}}
				if err := e.c.Create(ctx, s); err != nil {
					t.Fatal(err)
				}
			}
			cfg, err := overlayswitch.ShootRESTConfig(ctx, e.c, e.ns)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Host != tt.wantServer {
				t.Errorf("host %s, want %s", cfg.Host, tt.wantServer)
			}
		})
	}
}
