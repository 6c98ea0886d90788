package bump

import (
	"fmt"
	"regexp"
	"sort"
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
	rewritten := map[string]int{} // upstream repository -> rewrites in the old downstream
	var replacements []string
	for i, l := range m.o.lines {
		ai := m.oa.partner[i]
		if ai < 0 || m.a.lines[ai].text == l.text || m.a.lines[ai].isComment() {
			continue
		}
		if !strings.Contains(l.text, "image:") || l.isComment() {
			continue
		}
		mm := imageLine.FindStringSubmatch(l.text)
		if mm == nil {
			continue
		}
		rewritten[imageRepository(mm[1])]++
		replacements = append(replacements, strings.TrimSpace(m.masker.Unmask(m.followVersion(m.a.lines[ai].text))))
	}
	if len(rewritten) == 0 {
		return Check{Name: "image rewrites", OK: true, Message: "the downstream rewrote no image references"}
	}
	// Repositories the old downstream still references un-rewritten are not required to vanish.
	keptInDownstream := map[string]bool{}
	for _, l := range m.a.lines {
		if !strings.Contains(l.text, "image:") || l.isComment() {
			continue
		}
		if mm := imageLine.FindStringSubmatch(l.text); mm != nil {
			keptInDownstream[imageRepository(mm[1])] = true
		}
	}
	total := 0
	for _, n := range rewritten {
		total += n
	}
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
		if !strings.Contains(l, "image:") {
			continue
		}
		if mm := imageLine.FindStringSubmatch(l); mm != nil {
			repo := imageRepository(mm[1])
			if rewritten[repo] > 0 && !keptInDownstream[repo] {
				leftover = append(leftover, fmt.Sprintf("line %d: %s", n+1, strings.TrimSpace(l)))
			}
		}
	}
	repos := make([]string, 0, len(rewritten))
	for r := range rewritten {
		repos = append(repos, r)
	}
	sort.Strings(repos)
	msg := fmt.Sprintf("old downstream rewrote %d references (%s); output has %d rewritten references and %d un-rewritten references to those repositories",
		total, strings.Join(repos, ", "), inOutput, len(leftover))
	if len(leftover) > 0 {
		msg += ": " + strings.Join(leftover, "; ")
	}
	return Check{Name: "image rewrites", OK: len(leftover) == 0, Message: msg}
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
