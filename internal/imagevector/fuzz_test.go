package imagevector

import "testing"

// FuzzLoadVector feeds arbitrary IMAGEVECTOR_OVERWRITE files to the parser: it must never panic,
// and an accepted override merged over the default resolves every image or says why not.
func FuzzLoadVector(f *testing.F) {
	f.Add([]byte("images:\n- name: calico-node\n  repository: a.example/n\n  tag: v3.28.0\n"))
	f.Add([]byte("images:\n- name: calico-node\n  repository: a.example/n\n  tag: v3.28 rc1\n"))
	f.Add([]byte("images:\n- name: calico-node\n  ref: a.example/n@sha256:0000000000000000000000000000000000000000000000000000000000000000\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := LoadVector(data); err != nil {
			return
		}
		_, _ = Load(data)
	})
}
