package bump

import "context"

// matchLines returns the longest-common-subsequence style alignment of a and b as pairs of
// indexes, increasing in both. It anchors on elements that occur exactly once on each side
// (patience diff), which keeps structurally unique lines (key paths) aligned, and falls back to
// Myers' algorithm between anchors.
// A cancelled ctx stops the work early with a partial result; the caller checks ctx.Err().
func matchLines(ctx context.Context, a, b []int) [][2]int {
	var out [][2]int
	patience(ctx, a, b, 0, len(a), 0, len(b), &out)
	return out
}

func patience(ctx context.Context, a, b []int, alo, ahi, blo, bhi int, out *[][2]int) {
	if ctx.Err() != nil {
		return
	}
	// Common prefix and suffix.
	for alo < ahi && blo < bhi && a[alo] == b[blo] {
		*out = append(*out, [2]int{alo, blo})
		alo++
		blo++
	}
	var suffix [][2]int
	for alo < ahi && blo < bhi && a[ahi-1] == b[bhi-1] {
		ahi--
		bhi--
		suffix = append(suffix, [2]int{ahi, bhi})
	}
	defer func() {
		for i := len(suffix) - 1; i >= 0; i-- {
			*out = append(*out, suffix[i])
		}
	}()
	if alo == ahi || blo == bhi {
		return
	}
	type occ struct{ countA, countB, posA, posB int }
	occs := map[int]*occ{}
	for i := alo; i < ahi; i++ {
		o := occs[a[i]]
		if o == nil {
			o = &occ{}
			occs[a[i]] = o
		}
		o.countA++
		o.posA = i
	}
	for j := blo; j < bhi; j++ {
		if o := occs[b[j]]; o != nil {
			o.countB++
			o.posB = j
		}
	}
	// Unique common elements in a-order.
	var uniq [][2]int
	for i := alo; i < ahi; i++ {
		if o := occs[a[i]]; o.countA == 1 && o.countB == 1 {
			uniq = append(uniq, [2]int{i, o.posB})
		}
	}
	if len(uniq) == 0 {
		if (ahi-alo)+(bhi-blo) > maxMyersSpan {
			// No anchor at all in a huge region (the trace would need quadratic memory):
			// leave it unmatched; the merge then treats it as replaced, which is correct,
			// only less precise.
			return
		}
		myers(ctx, a, b, alo, ahi, blo, bhi, out)
		return
	}
	anchors := longestIncreasing(uniq)
	pa, pb := alo, blo
	for _, an := range anchors {
		patience(ctx, a, b, pa, an[0], pb, an[1], out)
		*out = append(*out, an)
		pa, pb = an[0]+1, an[1]+1
	}
	patience(ctx, a, b, pa, ahi, pb, bhi, out)
}

// maxMyersSpan bounds the region Myers' algorithm runs on; its trace grows with the square of
// the edit distance.
const maxMyersSpan = 6000

// longestIncreasing returns the longest subsequence of pairs (already increasing in the first
// element) whose second elements increase too.
func longestIncreasing(pairs [][2]int) [][2]int {
	tails := []int{} // indexes into pairs
	prev := make([]int, len(pairs))
	for i, p := range pairs {
		lo, hi := 0, len(tails)
		for lo < hi {
			mid := (lo + hi) / 2
			if pairs[tails[mid]][1] < p[1] {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo > 0 {
			prev[i] = tails[lo-1]
		} else {
			prev[i] = -1
		}
		if lo == len(tails) {
			tails = append(tails, i)
		} else {
			tails[lo] = i
		}
	}
	res := make([][2]int, len(tails))
	for k, i := len(tails)-1, tails[len(tails)-1]; k >= 0; k-- {
		res[k] = pairs[i]
		i = prev[i]
	}
	return res
}

// myers appends the matches of a shortest edit script between a[alo:ahi] and b[blo:bhi].
func myers(ctx context.Context, a, b []int, alo, ahi, blo, bhi int, out *[][2]int) {
	n, m := ahi-alo, bhi-blo
	maxD := n + m
	offset := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	found := false
	for d := 0; d <= maxD && !found; d++ {
		if ctx.Err() != nil {
			return
		}
		snapshot := make([]int, 2*d+3)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[offset+k-1] < v[offset+k+1]) {
				x = v[offset+k+1]
			} else {
				x = v[offset+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[alo+x] == b[blo+y] {
				x++
				y++
			}
			v[offset+k] = x
			if x >= n && y >= m {
				found = true
			}
		}
		for k := -d - 1; k <= d+1; k++ {
			snapshot[k+d+1] = v[offset+k]
		}
		trace = append(trace, snapshot)
	}
	// Backtrack.
	var rev [][2]int
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		prevV := trace[d-1]
		get := func(k int) int { return prevV[k+(d-1)+1] }
		k := x - y
		var prevK int
		if k == -d || (k != d && get(k-1) < get(k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := get(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x--
			y--
			rev = append(rev, [2]int{alo + x, blo + y})
		}
		x, y = prevX, prevY
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, [2]int{alo + x, blo + y})
	}
	for i := len(rev) - 1; i >= 0; i-- {
		*out = append(*out, rev[i])
	}
}

// maxTableCells bounds the LCS table matchBy builds for one gap (16 MB of int32).
const maxTableCells = 4_000_000

// matchBy aligns a[alo:ahi] with b[blo:bhi] by an arbitrary relation with a classic LCS table.
// It is used only inside the small gaps that exact matching left (matchGap splits larger ones),
// and gives up (no matches) when a gap is too large for a table.
func matchBy(ctx context.Context, alo, ahi, blo, bhi int, eq func(i, j int) bool) [][2]int {
	n, m := ahi-alo, bhi-blo
	if n == 0 || m == 0 || n*m > maxTableCells {
		return nil
	}
	w := m + 1
	t := make([]int32, (n+1)*w)
	for i := n - 1; i >= 0; i-- {
		if ctx.Err() != nil {
			return nil
		}
		for j := m - 1; j >= 0; j-- {
			switch {
			case eq(alo+i, blo+j):
				t[i*w+j] = t[(i+1)*w+j+1] + 1
			case t[(i+1)*w+j] >= t[i*w+j+1]:
				t[i*w+j] = t[(i+1)*w+j]
			default:
				t[i*w+j] = t[i*w+j+1]
			}
		}
	}
	var out [][2]int
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case eq(alo+i, blo+j) && t[i*w+j] == t[(i+1)*w+j+1]+1:
			out = append(out, [2]int{alo + i, blo + j})
			i++
			j++
		case t[(i+1)*w+j] >= t[i*w+j+1]:
			i++
		default:
			j++
		}
	}
	return out
}
