package demo

import (
	"fmt"
	"sort"
	"strings"
)

// formatWrites prints counts as "resource n, ..." sorted by resource.
func formatWrites(diff map[string]int) string {
	keys := make([]string, 0, len(diff))
	for k := range diff {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, diff[k])
	}
	return strings.Join(parts, ", ")
}
