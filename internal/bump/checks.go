package bump

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

var (
	imageLine        = regexp.MustCompile(`^\s*(?:-\s+)?image:\s*["']?([^"'\s]+)`)
	calicoImageTag   = regexp.MustCompile(`^\s*(?:-\s+)?image:\s*["']?\S*calico/[A-Za-z0-9._-]+:(v[0-9]+\.[0-9]+\.[0-9]+)\b`)
	calicoURLVersion = regexp.MustCompile(`(projectcalico/calico/(?:blob|raw|tree|releases/download)/)v[0-9]+\.[0-9]+\.[0-9]+`)
)

// resolveVersions settles the old and new Calico versions: flags win, else the most common tag of
// the calico images in each upstream.
func (m *merger) resolveVersions(opts Options) {
	from, to := opts.FromVersion, opts.ToVersion
	source := "flags"
	if from == "" || to == "" {
		source = "upstream image tags"
		if from == "" {
			from = commonTag(m.o)
		}
		if to == "" {
			to = commonTag(m.b)
		}
		if opts.FromVersion != "" || opts.ToVersion != "" {
			source = "flags and upstream image tags"
		}
	}
	m.fromVersion, m.toVersion = from, to
	m.report.FromVersion, m.report.ToVersion, m.report.VersionSource = from, to, source
	if from == "" || to == "" || from == to {
		return
	}
	// Old-version strings and calico release URLs (whatever version a stale header names).
	m.versionRe = regexp.MustCompile(`(?:^|[^0-9A-Za-z.])` + regexp.QuoteMeta(from) + `(?:$|[^0-9A-Za-z])|` + calicoURLVersion.String())
}

func commonTag(d *document) string {
	counts := map[string]int{}
	for _, l := range d.lines {
		if !strings.Contains(l.text, "image:") {
			continue
		}
		if mm := calicoImageTag.FindStringSubmatch(l.text); mm != nil {
			counts[mm[1]]++
		}
	}
	best, bestN := "", 0
	for tag, n := range counts {
		if n > bestN || n == bestN && tag < best {
			best, bestN = tag, n
		}
	}
	return best
}

// imageRepository strips the tag and digest from an image reference.
func imageRepository(ref string) string {
	if at := strings.IndexByte(ref, '@'); at >= 0 {
		ref = ref[:at]
	}
	if colon := strings.LastIndexByte(ref, ':'); colon > strings.LastIndexByte(ref, '/') {
		ref = ref[:colon]
	}
	return ref
}

// imageCheck verifies that every image repository the downstream rewrote everywhere is rewritten
// everywhere in the output too, and counts the rewritten references.
func (m *merger) imageCheck(output string) Check {
	rewritten, replacements := m.downstreamImageRewrites()
	if len(rewritten) == 0 {
		return Check{Name: "image rewrites", OK: true, Message: "the downstream rewrote no image references"}
	}
	// Repositories the old downstream still references un-rewritten are not required to vanish.
	keptInDownstream := map[string]bool{}
	for _, l := range m.a.lines {
		if l.isComment() {
			continue
		}
		if repo, ok := imageRepositoryIn(l.text); ok {
			keptInDownstream[repo] = true
		}
	}
	inOutput, leftover := outputImageRewrites(output, rewritten, keptInDownstream, replacements)
	total := 0
	for _, n := range rewritten {
		total += n
	}
	msg := fmt.Sprintf("old downstream rewrote %d references (%s); output has %d rewritten references and %d un-rewritten references to those repositories",
		total, strings.Join(slices.Sorted(maps.Keys(rewritten)), ", "), inOutput, len(leftover))
	if len(leftover) > 0 {
		msg += ": " + strings.Join(leftover, "; ")
	}
	return Check{Name: "image rewrites", OK: len(leftover) == 0, Message: msg}
}

// downstreamImageRewrites returns the upstream image repositories the old downstream rewrote, with
// how many references it rewrote, and the rewritten lines as the output should carry them.
func (m *merger) downstreamImageRewrites() (map[string]int, []string) {
	rewritten := map[string]int{} // upstream repository -> rewrites in the old downstream
	var replacements []string
	for i, l := range m.o.lines {
		ai := m.oa.partner[i]
		if ai < 0 || m.a.lines[ai].text == l.text || m.a.lines[ai].isComment() || l.isComment() {
			continue
		}
		repo, ok := imageRepositoryIn(l.text)
		if !ok {
			continue
		}
		rewritten[repo]++
		replacements = append(replacements, strings.TrimSpace(m.masker.Unmask(m.followVersion(m.a.lines[ai].text))))
	}
	return rewritten, replacements
}

// outputImageRewrites scans the output's non-comment lines: it counts the lines that are one of
// the replacements and lists (as "line N: text") the references to a rewritten repository that the
// old downstream did not keep.
func outputImageRewrites(output string, rewritten map[string]int, keptInDownstream map[string]bool, replacements []string) (int, []string) {
	outLines, _ := splitLines(output)
	replaced := map[string]bool{}
	for _, r := range replacements {
		replaced[r] = true
	}
	inOutput := 0
	var leftover []string
	for n, l := range outLines {
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		if replaced[strings.TrimSpace(l)] {
			inOutput++
			continue
		}
		if repo, ok := imageRepositoryIn(l); ok && rewritten[repo] > 0 && !keptInDownstream[repo] {
			leftover = append(leftover, fmt.Sprintf("line %d: %s", n+1, strings.TrimSpace(l)))
		}
	}
	return inOutput, leftover
}

// imageRepositoryIn returns the repository of the image a line references, if it is an image line.
func imageRepositoryIn(text string) (string, bool) {
	if !strings.Contains(text, "image:") {
		return "", false
	}
	mm := imageLine.FindStringSubmatch(text)
	if mm == nil {
		return "", false
	}
	return imageRepository(mm[1]), true
}

// expectationChecks runs the user's --expect-absent and --expect-count checks on the output.
func expectationChecks(output string, opts Options) []Check {
	lines, _ := splitLines(output)
	matching := func(re *regexp.Regexp) []int {
		var ns []int
		for n, l := range lines {
			if re.MatchString(l) {
				ns = append(ns, n+1)
			}
		}
		return ns
	}
	var checks []Check
	for _, re := range opts.ExpectAbsent {
		ns := matching(re)
		c := Check{Name: fmt.Sprintf("expect-absent %q", re.String()), OK: len(ns) == 0}
		if c.OK {
			c.Message = "no line matches"
		} else {
			c.Message = fmt.Sprintf("%d lines match (lines %s), expected none", len(ns), joinInts(ns))
		}
		checks = append(checks, c)
	}
	for _, cc := range opts.ExpectCount {
		ns := matching(cc.Pattern)
		c := Check{Name: fmt.Sprintf("expect-count %q=%d", cc.Pattern.String(), cc.Count), OK: len(ns) == cc.Count}
		c.Message = fmt.Sprintf("%d lines match, expected %d", len(ns), cc.Count)
		if len(ns) > 0 {
			c.Message += " (lines " + joinInts(ns) + ")"
		}
		checks = append(checks, c)
	}
	return checks
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}
