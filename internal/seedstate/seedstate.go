package seedstate

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/decode"
)

// Shoot is the seed state of one shoot's networking.
type Shoot struct {
	// Namespace is the shoot's control-plane namespace.
	Namespace string
	// Network is the shoot's Network.
	Network *extensionsv1alpha1.Network
	// Shoot is the Shoot embedded in the Cluster; nil when the Cluster is missing or does not decode
	// (Problem says which).
	Shoot *gardencorev1beta1.Shoot
	// ManagedResource is the deployed ManagedResource; nil when there is none.
	ManagedResource *resourcesv1alpha1.ManagedResource
	// Deployed is the data of the ManagedResource's secrets, merged in secretRefs order (the keys
	// of a later secret win, as the resource manager applies them in turn); nil without a
	// ManagedResource.
	Deployed map[string][]byte
	// Problems are what could not be read (a missing Cluster or secret).
	Problems []string
}

// Source is what Assemble reads objects from.
type Source interface {
	// Networks lists the Networks of all namespaces.
	Networks(ctx context.Context) ([]extensionsv1alpha1.Network, error)
	// Cluster returns the Cluster of a name; nil when there is none.
	Cluster(ctx context.Context, name string) (*extensionsv1alpha1.Cluster, error)
	// ManagedResource returns a ManagedResource; nil when there is none.
	ManagedResource(ctx context.Context, namespace, name string) (*resourcesv1alpha1.ManagedResource, error)
	// Secret returns a Secret; nil when there is none.
	Secret(ctx context.Context, namespace, name string) (*corev1.Secret, error)
}

// Assemble reads the state of every Network of networkType, sorted by namespace. mrName is the
// ManagedResource that holds the shoot manifest (extension-networking-calico-config).
func Assemble(ctx context.Context, src Source, networkType, mrName string) ([]Shoot, error) {
	networks, err := src.Networks(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing Networks: %w", err)
	}
	var out []Shoot
	for i := range networks {
		n := &networks[i]
		if n.Spec.Type != networkType {
			continue
		}
		s := Shoot{Namespace: n.Namespace, Network: n}
		cluster, err := src.Cluster(ctx, n.Namespace)
		switch {
		case err != nil:
			return nil, fmt.Errorf("reading Cluster %s: %w", n.Namespace, err)
		case cluster == nil:
			s.Problems = append(s.Problems, fmt.Sprintf("no Cluster %s", n.Namespace))
		default:
			shoot, err := decode.ClusterShoot(cluster)
			switch {
			case err != nil:
				s.Problems = append(s.Problems, fmt.Sprintf("the shoot of Cluster %s does not decode: %v", n.Namespace, err))
			case shoot == nil:
				s.Problems = append(s.Problems, fmt.Sprintf("the Cluster %s embeds no shoot", n.Namespace))
			default:
				s.Shoot = shoot
			}
		}
		mr, err := src.ManagedResource(ctx, n.Namespace, mrName)
		if err != nil {
			return nil, fmt.Errorf("reading ManagedResource %s/%s: %w", n.Namespace, mrName, err)
		}
		if mr != nil {
			s.ManagedResource = mr
			s.Deployed = map[string][]byte{}
			for _, ref := range mr.Spec.SecretRefs {
				secret, err := src.Secret(ctx, n.Namespace, ref.Name)
				if err != nil {
					return nil, fmt.Errorf("reading Secret %s/%s: %w", n.Namespace, ref.Name, err)
				}
				if secret == nil {
					s.Problems = append(s.Problems, fmt.Sprintf("ManagedResource %s refers to Secret %s, which does not exist", mrName, ref.Name))
					continue
				}
				for k, v := range secret.Data {
					s.Deployed[k] = v
				}
			}
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Namespace < out[j].Namespace })
	return out, nil
}

// ClientSource reads from a live seed. The client must not cache Secrets (use an uncached client).
type ClientSource struct {
	Reader client.Reader
}

// Networks implements Source.
func (c ClientSource) Networks(ctx context.Context) ([]extensionsv1alpha1.Network, error) {
	var list extensionsv1alpha1.NetworkList
	if err := c.Reader.List(ctx, &list); err != nil {
		return nil, err
	}
	return list.Items, nil
}

// Cluster implements Source.
func (c ClientSource) Cluster(ctx context.Context, name string) (*extensionsv1alpha1.Cluster, error) {
	obj := &extensionsv1alpha1.Cluster{}
	return getOrNil(ctx, c.Reader, client.ObjectKey{Name: name}, obj)
}

// ManagedResource implements Source.
func (c ClientSource) ManagedResource(ctx context.Context, namespace, name string) (*resourcesv1alpha1.ManagedResource, error) {
	obj := &resourcesv1alpha1.ManagedResource{}
	return getOrNil(ctx, c.Reader, client.ObjectKey{Namespace: namespace, Name: name}, obj)
}

// Secret implements Source.
func (c ClientSource) Secret(ctx context.Context, namespace, name string) (*corev1.Secret, error) {
	obj := &corev1.Secret{}
	return getOrNil(ctx, c.Reader, client.ObjectKey{Namespace: namespace, Name: name}, obj)
}

func getOrNil[T client.Object](ctx context.Context, r client.Reader, key client.ObjectKey, obj T) (T, error) {
	var zero T
	if err := r.Get(ctx, key, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return zero, nil
		}
		return zero, err
	}
	return obj, nil
}

// Objects is a Source over objects read from files (kubectl get ... -o yaml).
type Objects struct {
	NetworkList      []extensionsv1alpha1.Network
	Clusters         map[string]*extensionsv1alpha1.Cluster
	ManagedResources map[string]*resourcesv1alpha1.ManagedResource // by namespace/name
	Secrets          map[string]*corev1.Secret                     // by namespace/name
}

// Networks implements Source.
func (o *Objects) Networks(context.Context) ([]extensionsv1alpha1.Network, error) {
	return o.NetworkList, nil
}

// Cluster implements Source.
func (o *Objects) Cluster(_ context.Context, name string) (*extensionsv1alpha1.Cluster, error) {
	return o.Clusters[name], nil
}

// ManagedResource implements Source.
func (o *Objects) ManagedResource(_ context.Context, namespace, name string) (*resourcesv1alpha1.ManagedResource, error) {
	return o.ManagedResources[namespace+"/"+name], nil
}

// Secret implements Source.
func (o *Objects) Secret(_ context.Context, namespace, name string) (*corev1.Secret, error) {
	return o.Secrets[namespace+"/"+name], nil
}

// Add adds one object by its kind (Network, Cluster, ManagedResource, Secret); other kinds are
// skipped and reported false. raw is the object's JSON.
func (o *Objects) Add(kind string, raw []byte) (bool, error) {
	if o.Clusters == nil {
		o.Clusters = map[string]*extensionsv1alpha1.Cluster{}
		o.ManagedResources = map[string]*resourcesv1alpha1.ManagedResource{}
		o.Secrets = map[string]*corev1.Secret{}
	}
	switch kind {
	case "Network":
		n := extensionsv1alpha1.Network{}
		if err := json.Unmarshal(raw, &n); err != nil {
			return false, fmt.Errorf("decoding Network: %w", err)
		}
		o.NetworkList = append(o.NetworkList, n)
	case "Cluster":
		c := &extensionsv1alpha1.Cluster{}
		if err := json.Unmarshal(raw, c); err != nil {
			return false, fmt.Errorf("decoding Cluster: %w", err)
		}
		o.Clusters[c.Name] = c
	case "ManagedResource":
		mr := &resourcesv1alpha1.ManagedResource{}
		if err := json.Unmarshal(raw, mr); err != nil {
			return false, fmt.Errorf("decoding ManagedResource: %w", err)
		}
		o.ManagedResources[mr.Namespace+"/"+mr.Name] = mr
	case "Secret":
		s := &corev1.Secret{}
		if err := json.Unmarshal(raw, s); err != nil {
			return false, fmt.Errorf("decoding Secret: %w", err)
		}
		o.Secrets[s.Namespace+"/"+s.Name] = s
	default:
		return false, nil
	}
	return true, nil
}
