package bump

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMatchLines(t *testing.T) {
	cases := []struct {
		name string
		a, b []int
		want [][2]int
	}{
		{name: "equal", a: []int{1, 2, 3}, b: []int{1, 2, 3}, want: [][2]int{{0, 0}, {1, 1}, {2, 2}}},
		{name: "insert in the middle", a: []int{1, 3}, b: []int{1, 2, 3}, want: [][2]int{{0, 0}, {1, 2}}},
		{name: "delete and change", a: []int{1, 2, 3, 4}, b: []int{1, 5, 4}, want: [][2]int{{0, 0}, {3, 2}}},
		{name: "moved unique line keeps the longer run", a: []int{1, 2, 3, 4}, b: []int{2, 3, 4, 1}, want: [][2]int{{1, 0}, {2, 1}, {3, 2}}},
		{name: "repeated lines around a unique one (suffix wins ties)", a: []int{7, 7, 8, 7}, b: []int{7, 8, 7, 7}, want: [][2]int{{0, 0}, {2, 1}, {3, 3}}},
		{name: "empty side", a: nil, b: []int{1}, want: nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, matchLines(context.Background(), tc.a, tc.b)); diff != "" {
				t.Errorf("matchLines mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCommentedOut(t *testing.T) {
	cases := []struct {
		commented, original string
		wantCol             int
		wantMarker          string
		wantOK              bool
	}{
		{"        #- name: install-cni", "        - name: install-cni", 8, "#", true},
		{"        #  image: x", "          image: x", 8, "#", true},
		{"            # - name: CALICO_IPV4POOL_CIDR", "            - name: CALICO_IPV4POOL_CIDR", 12, "# ", true},
		{"  #cni_network_config: |-", "  cni_network_config: |-", 2, "#", true},
		{"        # Note: something else", "        - name: x", 0, "", false},
		{"x: 1 # comment", "x: 1 ", 0, "", false},
	}
	for _, tc := range cases {
		col, marker, ok := commentedOut(tc.commented, tc.original)
		if diff := cmp.Diff([]any{tc.wantCol, tc.wantMarker, tc.wantOK}, []any{col, marker, ok}); diff != "" {
			t.Errorf("commentedOut(%q, %q) mismatch (-want +got):\n%s", tc.commented, tc.original, diff)
		}
		if ok {
			if got := commentOut(tc.original, col, marker); got != tc.commented {
				t.Errorf("commentOut(%q, %d, %q) = %q, want %q", tc.original, col, marker, got, tc.commented)
			}
		}
	}
}
