// Package bump carries a downstream's local patches from one upstream Calico manifest onto a
// newer one.
//
// The engine works on lines but decides with YAML structure. Template expressions (Jinja
// `{{ ... }}`, `{% ... %}` lines, a `#!` renderer line, Salt `__slot__:` strings) are first masked
// reversibly so every file parses as YAML. Each line is then given an identity: the document it
// belongs to (kind/namespace/name) and its key path, with list items named by their `name` (or
// `key`) field. Two alignments are computed, old upstream to old downstream (the patches) and old
// upstream to new upstream (the upstream change), first on exact identity+text and then, inside
// the gaps, on identity alone (a changed value) or on "commented-out copy of". A three-way walk
// over the old upstream then decides every line: unchanged upstream text is copied byte for byte
// from the new upstream, a downstream change wins over an upstream change of the same line, and
// insertions from both sides are kept. What cannot be decided becomes a marked conflict block.
//
// Everything here is pure: inputs are byte slices, outputs are bytes and a Report.
package bump
