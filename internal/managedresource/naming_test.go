package managedresource

import "testing"

// The expected values were computed with sha256sum, independently of this code.
func TestSecretName(t *testing.T) {
	tests := []struct {
		name string
		mr   string
		data map[string][]byte
		want string
	}{
		{
			name: "two keys, hashed in sorted key order",
			mr:   "extension-networking-calico-config",
			data: map[string][]byte{"b.yaml": []byte("x"), "a.yaml": []byte("hello")},
			want: "managedresource-extension-networking-calico-config-ce2cb214",
		},
		{
			name: "one empty value",
			mr:   "extension-networking-calico-config",
			data: map[string][]byte{"config.yaml": {}},
			want: "managedresource-extension-networking-calico-config-cd372fb8",
		},
		{
			name: "name ending in a hyphen gets no second hyphen",
			mr:   "x-",
			data: map[string][]byte{"config.yaml": {}},
			want: "managedresource-x-cd372fb8",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SecretName(tt.mr, tt.data); got != tt.want {
				t.Errorf("SecretName = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReferenceAnnotation(t *testing.T) {
	got := referenceAnnotation("managedresource-extension-networking-calico-config-abcd1234")
	want := "reference.resources.gardener.cloud/secret-f3097766"
	if got != want {
		t.Errorf("referenceAnnotation = %q, want %q", got, want)
	}
}
