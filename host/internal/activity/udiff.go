package activity

import (
	"strconv"
	"strings"
)

// DefaultContext is the number of context lines a diff shows around each
// change when given a negative count.
const DefaultContext = 3

// diffBudget bounds the work of the Myers search (steps along diagonals,
// summed over the whole diff). Past it, the region still unresolved is shown
// as all removed then all added: a correct diff, though not a minimal one.
const diffBudget = 20_000_000

// unified is the unified diff from a to b with the given header names and
// context lines; "" when a and b are equal. Lines keep their terminators,
// so "x" and "x\n" differ, and a CRLF line is compared and printed as is.
func unified(fromName, toName, a, b string, context int) string {
	if a == b {
		return ""
	}
	if context < 0 {
		context = DefaultContext
	}
	al, bl := splitLines(a), splitLines(b)
	delA, insB := diffLines(al, bl, diffBudget)

	var out strings.Builder
	out.WriteString("--- " + fromName + "\n")
	out.WriteString("+++ " + toName + "\n")

	// Walk both sides in step, building hunks of changes with context.
	ops := editScript(len(al), len(bl), delA, insB)
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// ops[i] starts a change; extend the hunk while the next change is
		// at most 2*context equal lines away.
		start := i - context
		if start < 0 {
			start = 0
		}
		for start < i && ops[start].kind != ' ' {
			start++
		}
		end := i
		for {
			for end < len(ops) && ops[end].kind != ' ' {
				end++
			}
			gap := 0
			for end+gap < len(ops) && ops[end+gap].kind == ' ' {
				gap++
			}
			if end+gap < len(ops) && gap <= 2*context {
				end += gap
				continue
			}
			if gap > context {
				gap = context
			}
			end += gap
			break
		}
		writeHunk(&out, ops[start:end], al, bl)
		i = end
	}
	return out.String()
}

type op struct {
	kind byte // ' ', '-' or '+'
	a, b int  // line index in a (for ' ' and '-') and b (for ' ' and '+')
}

// editScript lists the lines of both sides in order: within a change, the
// removed lines come before the added ones, as in diff -u.
func editScript(na, nb int, delA, insB []bool) []op {
	ops := make([]op, 0, na+nb)
	i, j := 0, 0
	for i < na || j < nb {
		switch {
		case i < na && delA[i]:
			ops = append(ops, op{kind: '-', a: i, b: j})
			i++
		case j < nb && insB[j]:
			ops = append(ops, op{kind: '+', a: i, b: j})
			j++
		default:
			ops = append(ops, op{kind: ' ', a: i, b: j})
			i++
			j++
		}
	}
	return ops
}

func writeHunk(out *strings.Builder, ops []op, al, bl []string) {
	a0, b0 := ops[0].a, ops[0].b
	var na, nb int
	for _, o := range ops {
		switch o.kind {
		case ' ':
			na++
			nb++
		case '-':
			na++
		case '+':
			nb++
		}
	}
	out.WriteString("@@ -" + hunkRange(a0, na) + " +" + hunkRange(b0, nb) + " @@\n")
	for _, o := range ops {
		line := ""
		switch o.kind {
		case ' ', '-':
			line = al[o.a]
		case '+':
			line = bl[o.b]
		}
		out.WriteByte(o.kind)
		out.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange is a hunk header range as diff -u writes it: "l,n", "l" when
// n is 1, and for an empty range the number of the line before it, ",0".
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return strconv.Itoa(start) + ",0"
	case 1:
		return strconv.Itoa(start + 1)
	}
	return strconv.Itoa(start+1) + "," + strconv.Itoa(n)
}

// splitLines cuts s after each '\n'; a last line without one is kept.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := make([]string, 0, strings.Count(s, "\n")+1)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

// diffLines marks the lines of a to remove and of b to add so that what
// is left of both is a longest common subsequence (within diffBudget).
func diffLines(al, bl []string, budget int) (delA, insB []bool) {
	delA, insB = make([]bool, len(al)), make([]bool, len(bl))

	// Number the distinct lines, and count where each occurs.
	ids := make(map[string]int, len(al)+len(bl))
	inA, inB := []int{}, []int{}
	number := func(lines []string) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
				inA, inB = append(inA, 0), append(inB, 0)
			}
			out[i] = id
		}
		return out
	}
	a, b := number(al), number(bl)
	for _, id := range a {
		inA[id]++
	}
	for _, id := range b {
		inB[id]++
	}

	// A line that occurs on one side only is never common: mark it and
	// leave it out of the search, which keeps unrelated files cheap.
	var ax, bx []int // indexes of the lines kept
	for i, id := range a {
		if inB[id] == 0 {
			delA[i] = true
		} else {
			ax = append(ax, i)
		}
	}
	for j, id := range b {
		if inA[id] == 0 {
			insB[j] = true
		} else {
			bx = append(bx, j)
		}
	}
	m := myers{
		a: make([]int, len(ax)), b: make([]int, len(bx)),
		delA: make([]bool, len(ax)), insB: make([]bool, len(bx)),
		budget: budget,
	}
	for i, x := range ax {
		m.a[i] = a[x]
	}
	for j, x := range bx {
		m.b[j] = b[x]
	}
	n := len(ax) + len(bx)
	m.vf, m.vb = make([]int, n+3), make([]int, n+3)
	m.compare(0, len(ax), 0, len(bx))
	for i, x := range ax {
		delA[x] = m.delA[i]
	}
	for j, x := range bx {
		insB[x] = m.insB[j]
	}
	return delA, insB
}

// myers is the linear-space variant of Myers' O(ND) difference algorithm:
// find a point on an optimal edit path half way ("bisect"), then solve the
// two halves.
type myers struct {
	a, b       []int
	delA, insB []bool
	vf, vb     []int // furthest x per diagonal, forward and backward
	budget     int
}

func (m *myers) compare(a0, a1, b0, b1 int) {
	for a0 < a1 && b0 < b1 && m.a[a0] == m.b[b0] {
		a0++
		b0++
	}
	for a0 < a1 && b0 < b1 && m.a[a1-1] == m.b[b1-1] {
		a1--
		b1--
	}
	switch {
	case a0 == a1:
		for j := b0; j < b1; j++ {
			m.insB[j] = true
		}
		return
	case b0 == b1:
		for i := a0; i < a1; i++ {
			m.delA[i] = true
		}
		return
	}
	x, y, ok := m.bisect(a0, a1, b0, b1)
	if !ok {
		for i := a0; i < a1; i++ {
			m.delA[i] = true
		}
		for j := b0; j < b1; j++ {
			m.insB[j] = true
		}
		return
	}
	m.compare(a0, a0+x, b0, b0+y)
	m.compare(a0+x, a1, b0+y, b1)
}

// bisect finds a point (x, y), relative to (a0, b0), on an optimal path
// through the region, strictly between its corners; ok is false when the
// budget ran out first.
func (m *myers) bisect(a0, a1, b0, b1 int) (x, y int, ok bool) {
	n, mm := a1-a0, b1-b0
	maxD := (n + mm + 1) / 2
	off := maxD
	size := 2*maxD + 2
	vf, vb := m.vf[:size], m.vb[:size]
	for i := range vf {
		vf[i], vb[i] = -1, -1
	}
	vf[off+1], vb[off+1] = 0, 0
	delta := n - mm
	front := delta%2 != 0
	// Diagonals that ran off the grid are skipped from then on.
	var k1start, k1end, k2start, k2end int
	for d := 0; d < maxD; d++ {
		if m.budget -= 2*d + 2; m.budget < 0 {
			return 0, 0, false
		}
		for k1 := -d + k1start; k1 <= d-k1end; k1 += 2 {
			i := off + k1
			var x1 int
			if k1 == -d || (k1 != d && vf[i-1] < vf[i+1]) {
				x1 = vf[i+1]
			} else {
				x1 = vf[i-1] + 1
			}
			y1 := x1 - k1
			for x1 < n && y1 < mm && m.a[a0+x1] == m.b[b0+y1] {
				x1++
				y1++
			}
			vf[i] = x1
			switch {
			case x1 > n:
				k1end += 2
			case y1 > mm:
				k1start += 2
			case front:
				j := off + delta - k1
				if j >= 0 && j < size && vb[j] != -1 {
					x2 := vb[j]
					if y2 := x2 - (delta - k1); x2 <= n && y2 <= mm && x1 >= n-x2 {
						return x1, y1, true
					}
				}
			}
		}
		for k2 := -d + k2start; k2 <= d-k2end; k2 += 2 {
			i := off + k2
			var x2 int
			if k2 == -d || (k2 != d && vb[i-1] < vb[i+1]) {
				x2 = vb[i+1]
			} else {
				x2 = vb[i-1] + 1
			}
			y2 := x2 - k2
			for x2 < n && y2 < mm && m.a[a1-1-x2] == m.b[b1-1-y2] {
				x2++
				y2++
			}
			vb[i] = x2
			switch {
			case x2 > n:
				k2end += 2
			case y2 > mm:
				k2start += 2
			case !front:
				j := off + delta - k2
				if j >= 0 && j < size && vf[j] != -1 {
					x1 := vf[j]
					y1 := x1 - (delta - k2)
					if x1 <= n && y1 >= 0 && y1 <= mm && x1 >= n-x2 {
						return x1, y1, true
					}
				}
			}
		}
	}
	return 0, 0, false
}
