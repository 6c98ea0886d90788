package bump

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
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

// itemKeys returns the document+path keys of every named list item of d, with the names of
// the items before and after it under the same parent ("" at either end).
func itemKeys(d *document) map[string][2]string {
	order := map[string][]string{} // doc+parent -> item names in file order
	for _, l := range d.lines {
		if parent, name, ok := splitItemPath(l.path); ok {
			k := l.doc + "\x00" + parent
			order[k] = append(order[k], name)
		}
	}
	keys := map[string][2]string{}
	for k, names := range order {
		doc, parent, _ := strings.Cut(k, "\x00")
		for i, name := range names {
			var nb [2]string
			if i > 0 {
				nb[0] = names[i-1]
			}
			if i+1 < len(names) {
				nb[1] = names[i+1]
			}
			keys[doc+"\x00"+parent+"[name="+name+"]"] = nb
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

// minRenameEvidence is the number of equal lines (besides the name) two items need to be taken
// as one renamed item; a three-line volume that shares "hostPath:" and "type:" is not enough.
const minRenameEvidence = 3

// findRenames detects named list items the new upstream renamed: an item of the old upstream
// missing from the new one, and an item of the new upstream missing from the old one, under the
// same parent, at the same place (the same item before or after it), with at least half and at
// least minRenameEvidence of their other lines equal (versions ignored). Each old item is paired
// with its unique best match only.
func findRenames(o, b *document) []rename {
	oKeys, bKeys := itemKeys(o), itemKeys(b)
	onlyO, onlyB := keysMissingFrom(oKeys, bKeys), keysMissingFrom(bKeys, oKeys)
	if len(onlyO) == 0 || len(onlyB) == 0 {
		return nil
	}
	oItems, bItems := collectItems(o, onlyO), collectItems(b, onlyB)
	candidates := renameCandidates{items: bItems, order: slices.Sorted(maps.Keys(bItems)), neighbours: bKeys, taken: map[string]bool{}}
	var out []rename
	for _, k := range slices.Sorted(maps.Keys(oItems)) {
		oi := oItems[k]
		best, ok := candidates.bestMatch(oi, oKeys[k])
		if !ok {
			continue
		}
		candidates.taken[best] = true
		bi := bItems[best]
		out = append(out, rename{doc: oi.doc, from: oi.parent + "[name=" + oi.name + "]", to: bi.parent + "[name=" + bi.name + "]"})
	}
	return out
}

// keysMissingFrom returns the keys of a that other lacks.
func keysMissingFrom(a, other map[string][2]string) map[string]bool {
	missing := map[string]bool{}
	for k := range a {
		if _, ok := other[k]; !ok {
			missing[k] = true
		}
	}
	return missing
}

// renameCandidates are the new upstream's items an old item may have been renamed to: the items
// by key, their keys in sorted order, their neighbours (from itemKeys) and the ones already
// paired with an old item.
type renameCandidates struct {
	items      map[string]*namedItem
	order      []string
	neighbours map[string][2]string
	taken      map[string]bool
}

// bestMatch returns the key of the candidate oi (whose neighbours are on) was renamed to: the
// untaken candidate under the same parent, at the same place, with the highest share of equal
// lines, if that share is at least half, the equal lines at least minRenameEvidence, and no other
// candidate scores the same.
func (c renameCandidates) bestMatch(oi *namedItem, on [2]string) (string, bool) {
	best, bestScore, bestCommon, tie := "", 0.0, 0, false
	for _, bk := range c.order {
		bi := c.items[bk]
		if bi.doc != oi.doc || bi.parent != oi.parent || c.taken[bk] {
			continue
		}
		// A rename keeps its place: the same item before it or after it.
		if bn := c.neighbours[bk]; on[0] != bn[0] && on[1] != bn[1] {
			continue
		}
		common := commonLines(oi, bi)
		score := float64(common) / float64(max(len(oi.lines), len(bi.lines), 1))
		switch {
		case score > bestScore:
			best, bestScore, bestCommon, tie = bk, score, common, false
		case score == bestScore:
			tie = true
		}
	}
	return best, best != "" && bestScore >= 0.5 && bestCommon >= minRenameEvidence && !tie
}

// commonLines counts the lines two items share.
func commonLines(a, b *namedItem) int {
	common := 0
	for l := range a.lines {
		if b.lines[l] {
			common++
		}
	}
	return common
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
