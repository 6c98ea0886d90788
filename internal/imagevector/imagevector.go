package imagevector

import (
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// Image names, as used in the embedded file and in override files.
const (
	NameCalicoNode            = "calico-node"
	NameCalicoCNI             = "calico-cni"
	NameCalicoTypha           = "calico-typha"
	NameCalicoKubeControllers = "calico-kube-controllers"
	NameCPA                   = "calico-cpa"
	NameCPVA                  = "calico-cpva"
	NameBirdExporter          = "bird-exporter"
	NameMultus                = "multus-cni"
	NameCNIPlugins            = "cni-plugins"
)

// OverrideEnv is the environment variable naming an override file (same name as in the reference
// extension, so operators keep their setup).
const OverrideEnv = "IMAGEVECTOR_OVERWRITE"

//go:embed images.yaml
var embedded []byte

// Entry is one image pin.
type Entry struct {
	// Name identifies the image ("calico-node", ...).
	Name string `json:"name"`
	// Repository is the image repository without tag or digest.
	Repository string `json:"repository"`
	// Tag is the image tag; may be empty when Digest is set.
	Tag string `json:"tag,omitempty"`
	// Digest pins the image content ("sha256:..."); it wins over Tag when both are set.
	Digest string `json:"digest,omitempty"`
}

// Ref returns the image reference: repository@digest, or repository:tag.
func (e Entry) Ref() string {
	if e.Digest != "" {
		return e.Repository + "@" + e.Digest
	}
	return e.Repository + ":" + e.Tag
}

type file struct {
	Images []Entry `json:"images"`
}

// Images is a resolved set of image references by name.
type Images struct {
	CalicoNode            string
	CalicoCNI             string
	CalicoTypha           string
	CalicoKubeControllers string
	CPA                   string
	CPVA                  string
	BirdExporter          string
	Multus                string
	CNIPlugins            string
}

var digestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// Default returns the embedded image pins.
func Default() (Images, error) {
	return Load(nil)
}

// Load returns the embedded pins with override (the contents of an override file; nil for none)
// applied on top. An override entry must name a known image; its repository, tag and digest
// replace the pinned ones where given.
func Load(override []byte) (Images, error) {
	base, err := parse(embedded, "embedded image vector")
	if err != nil {
		return Images{}, err
	}
	byName := map[string]Entry{}
	for _, e := range base {
		byName[e.Name] = e
	}
	if override != nil {
		over, err := parse(override, "image vector override")
		if err != nil {
			return Images{}, err
		}
		for i, o := range over {
			cur, ok := byName[o.Name]
			if !ok {
				return Images{}, fmt.Errorf("image vector override: images[%d].name: unknown image %q, known images are %s", i, o.Name, knownNames(byName))
			}
			if o.Repository != "" {
				cur.Repository = o.Repository
			}
			if o.Tag != "" || o.Digest != "" {
				cur.Tag, cur.Digest = o.Tag, o.Digest
			}
			byName[o.Name] = cur
		}
	}
	get := func(name string) string { return byName[name].Ref() }
	return Images{
		CalicoNode:            get(NameCalicoNode),
		CalicoCNI:             get(NameCalicoCNI),
		CalicoTypha:           get(NameCalicoTypha),
		CalicoKubeControllers: get(NameCalicoKubeControllers),
		CPA:                   get(NameCPA),
		CPVA:                  get(NameCPVA),
		BirdExporter:          get(NameBirdExporter),
		Multus:                get(NameMultus),
		CNIPlugins:            get(NameCNIPlugins),
	}, nil
}

// FromEnv loads the pins with the override file named by $IMAGEVECTOR_OVERWRITE, if set.
// lookupEnv and readFile are injected (os.LookupEnv, os.ReadFile) so callers and tests control them.
func FromEnv(lookupEnv func(string) (string, bool), readFile func(string) ([]byte, error)) (Images, error) {
	path, ok := lookupEnv(OverrideEnv)
	if !ok || path == "" {
		return Default()
	}
	data, err := readFile(path)
	if err != nil {
		return Images{}, fmt.Errorf("reading image vector override %s (from $%s): %w", path, OverrideEnv, err)
	}
	imgs, err := Load(data)
	if err != nil {
		return Images{}, fmt.Errorf("%s (from $%s): %w", path, OverrideEnv, err)
	}
	return imgs, nil
}

func parse(data []byte, what string) ([]Entry, error) {
	var f file
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", what, err)
	}
	seen := map[string]bool{}
	var errs []error
	for i, e := range f.Images {
		switch {
		case e.Name == "":
			errs = append(errs, fmt.Errorf("%s: images[%d].name: required", what, i))
		case seen[e.Name]:
			errs = append(errs, fmt.Errorf("%s: images[%d].name: duplicate image %q", what, i, e.Name))
		}
		seen[e.Name] = true
		if e.Digest != "" && !digestRE.MatchString(e.Digest) {
			errs = append(errs, fmt.Errorf("%s: images[%d].digest: %q is not a digest, expected sha256:<64 hex digits>", what, i, e.Digest))
		}
		if strings.ContainsAny(e.Repository, "@ ") || strings.HasSuffix(e.Repository, ":") {
			errs = append(errs, fmt.Errorf("%s: images[%d].repository: %q must be a repository without tag or digest", what, i, e.Repository))
		}
	}
	return f.Images, errors.Join(errs...)
}

func knownNames(m map[string]Entry) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return "[" + strings.Join(names, ", ") + "]"
}
