package bump

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// anyVersion matches version strings, which a rename comparison ignores.
var anyVersion = regexp.MustCompile(`v?[0-9]+\.[0-9]+\.[0-9]+`)

// namedItem is one named list item of a document: its lines' paths relative to the item and texts.
type namedItem struct {
	doc, parent, name string
	lines             map[string]bool // relative path + "\x00" + text (versions blanked)
}

// splitItemPath splits a path ending in a named list item ("...containers[name=x]") into the
// parent path and the name.
func splitItemPath(path string) (string, string, bool) {
	if !strings.HasSuffix(path, "]") {
		return "", "", false
	}
	idx := strings.LastIndex(path, "[name=")
	if idx < 0 || strings.IndexByte(path[idx:], ']') != len(path)-idx-1 {
		return "", "", false
	}
	return path[:idx], path[idx+len("[name=") : len(path)-1], true
}

// itemKeys returns the document+path keys of every named list item of d.
func itemKeys(d *document) map[string]bool {
	keys := map[string]bool{}
	for _, l := range d.lines {
		if _, _, ok := splitItemPath(l.path); ok {
			keys[l.doc+"\x00"+l.path] = true
		}
	}
	return keys
}

// collectItems gathers the lines of the items of d whose keys are in wanted.
func collectItems(d *document, wanted map[string]bool) map[string]*namedItem {
	items := map[string]*namedItem{}
	for k := range wanted {
		doc, path, _ := strings.Cut(k, "\x00")
		parent, name, _ := splitItemPath(path)
		items[k] = &namedItem{doc: doc, parent: parent, name: name, lines: map[string]bool{}}
	}
	for _, l := range d.lines {
		if l.path == "" {
			continue
		}
		// Attribute the line to every wanted item it is inside.
		for p := l.path; ; {
			idx := strings.LastIndex(p, "[name=")
			if idx < 0 {
				break
			}
			end := strings.IndexByte(p[idx:], ']')
			if end < 0 {
				break
			}
			prefix := p[:idx+end+1]
			if it := items[l.doc+"\x00"+prefix]; it != nil && l.path != prefix {
				it.lines[l.path[len(prefix):]+"\x00"+anyVersion.ReplaceAllString(strings.TrimSpace(l.text), "V")] = true
			}
			p = p[:idx]
		}
	}
	return items
}

// rename is an upstream rename of a named list item.
type rename struct {
	doc, from, to string // full paths of the item before and after
}

// findRenames detects named list items the new upstream renamed: an item of the old upstream
// missing from the new one, and an item of the new upstream missing from the old one, under the
// same parent, with at least half of their other lines equal (versions ignored). Each old item
// is paired with its unique best match only.
func findRenames(o, b *document) []rename {
	oKeys, bKeys := itemKeys(o), itemKeys(b)
	onlyO, onlyB := map[string]bool{}, map[string]bool{}
	for k := range oKeys {
		if !bKeys[k] {
			onlyO[k] = true
		}
	}
	for k := range bKeys {
		if !oKeys[k] {
			onlyB[k] = true
		}
	}
	if len(onlyO) == 0 || len(onlyB) == 0 {
		return nil
	}
	oItems, bItems := collectItems(o, onlyO), collectItems(b, onlyB)
	var out []rename
	keys := make([]string, 0, len(oItems))
	for k := range oItems {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	bKeysSorted := make([]string, 0, len(bItems))
	for k := range bItems {
		bKeysSorted = append(bKeysSorted, k)
	}
	sort.Strings(bKeysSorted)
	taken := map[string]bool{}
	for _, k := range keys {
		oi := oItems[k]
		best, bestScore, tie := "", 0.0, false
		for _, bk := range bKeysSorted {
			bi := bItems[bk]
			if bi.doc != oi.doc || bi.parent != oi.parent || taken[bk] {
				continue
			}
			common := 0
			for l := range oi.lines {
				if bi.lines[l] {
					common++
				}
			}
			score := float64(common) / float64(max(len(oi.lines), len(bi.lines), 1))
			switch {
			case score > bestScore:
				best, bestScore, tie = bk, score, false
			case score == bestScore:
				tie = true
			}
		}
		if best != "" && bestScore >= 0.5 && !tie {
			taken[best] = true
			bi := bItems[best]
			out = append(out, rename{doc: oi.doc, from: oi.parent + "[name=" + oi.name + "]", to: bi.parent + "[name=" + bi.name + "]"})
		}
	}
	return out
}

// applyRenames rewrites the paths of renamed items in d to their new names.
func applyRenames(d *document, renames []rename) {
	for _, r := range renames {
		for i, l := range d.lines {
			if l.doc == r.doc && (l.path == r.from || strings.HasPrefix(l.path, r.from+".") || strings.HasPrefix(l.path, r.from+"[")) {
				d.lines[i].path = r.to + l.path[len(r.from):]
			}
		}
	}
}

func (r rename) String() string {
	return fmt.Sprintf("upstream renamed %s %s to %s; patches to it follow the new name", r.doc, r.from, r.to)
}
