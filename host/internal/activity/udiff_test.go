package activity

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// gnuDiff runs diff -U<context> on a and b written to two files and returns
// its output without the two header lines; ok is false when the binary is
// missing.
func gnuDiff(t *testing.T, a, b string, context int) (string, bool) {
	t.Helper()
	bin, err := exec.LookPath("diff")
	if err != nil {
		return "", false
	}
	dir := t.TempDir()
	pa, pb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(pa, []byte(a), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pb, []byte(b), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-U"+strconv.Itoa(context), pa, pb).Output()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		t.Fatalf("diff: %v", err)
	}
	return dropHeaders(string(out)), true
}

func dropHeaders(d string) string {
	if i := strings.Index(d, "@@"); i >= 0 {
		return d[i:]
	}
	return d
}

func TestUnifiedMatchesGNUDiff(t *testing.T) {
	t.Parallel()
	lines := func(n int, prefix string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			b.WriteString(prefix + strconv.Itoa(i) + "\n")
		}
		return b.String()
	}
	base := lines(20, "line ")
	tests := map[string]struct {
		a, b    string
		context int
	}{
		"one line changed":         {a: "a\nb\nc\n", b: "a\nB\nc\n", context: 3},
		"insert at start":          {a: base, b: "new\n" + base, context: 3},
		"delete at end":            {a: base, b: strings.TrimSuffix(base, "line 20\n"), context: 3},
		"two hunks far apart":      {a: base, b: strings.Replace(strings.Replace(base, "line 2\n", "two\n", 1), "line 18\n", "eighteen\n", 1), context: 3},
		"merged at gap 2*context":  {a: base, b: strings.Replace(strings.Replace(base, "line 5\n", "five\n", 1), "line 12\n", "twelve\n", 1), context: 3},
		"split at gap 2*context+1": {a: base, b: strings.Replace(strings.Replace(base, "line 5\n", "five\n", 1), "line 13\n", "thirteen\n", 1), context: 3},
		"context 0":                {a: base, b: strings.Replace(base, "line 7\n", "seven\nseven and a half\n", 1), context: 0},
		"context 1 pure insert":    {a: base, b: strings.Replace(base, "line 7\n", "line 7\nextra\n", 1), context: 1},
		"context 0 pure delete":    {a: base, b: strings.Replace(base, "line 7\n", "", 1), context: 0},
		"empty to content":         {a: "", b: "x\ny\nz\n", context: 3},
		"content to empty":         {a: "x\ny\nz\n", b: "", context: 3},
		"no newline at end, old":   {a: "a\nb\nc", b: "a\nb\nc\n", context: 3},
		"no newline at end, new":   {a: "a\nb\nc\n", b: "a\nb\nc", context: 3},
		"no newline at end, both":  {a: "a\nb\nc", b: "a\nB\nc", context: 3},
		"no newline, last changed": {a: "a\nb\nc", b: "a\nb\nd", context: 3},
		"CRLF lines":               {a: "one\r\ntwo\r\nthree\r\n", b: "one\r\ntwo 2\r\nthree\r\n", context: 3},
		"CRLF to LF":               {a: "one\r\ntwo\r\n", b: "one\ntwo\n", context: 3},
		"one line file":            {a: "x", b: "y", context: 3},
		"replace block":            {a: lines(10, "old "), b: lines(10, "new "), context: 3},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want, ok := gnuDiff(t, tc.a, tc.b, tc.context)
			if !ok {
				t.Skip("no diff binary")
			}
			got := unified("a/f", "b/f", tc.a, tc.b, tc.context)
			if !strings.HasPrefix(got, "--- a/f\n+++ b/f\n") {
				t.Fatalf("headers missing:\n%s", got)
			}
			if d := cmp.Diff(want, dropHeaders(got)); d != "" {
				t.Errorf("hunks differ from diff -u (-diff +ours):\n%s", d)
			}
		})
	}
}

func TestUnifiedEqual(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "a\n", "a\r\nb"} {
		if got := unified("a/f", "b/f", s, s, 3); got != "" {
			t.Errorf("unified(%q, %q) = %q, want empty", s, s, got)
		}
	}
}

// applyUnified applies a diff made by unified to a, to check it is a
// correct patch.
func applyUnified(t *testing.T, a, d string) string {
	t.Helper()
	if d == "" {
		return a
	}
	al := splitLines(a)
	var out []string
	next := 0 // next line of a not yet copied
	dl := strings.SplitAfter(d, "\n")
	for i := 2; i < len(dl) && dl[i] != ""; {
		h := dl[i]
		if !strings.HasPrefix(h, "@@ -") {
			t.Fatalf("bad hunk header %q", h)
		}
		r := strings.Fields(h)[1][1:]
		start, _, _ := strings.Cut(r, ",")
		s, err := strconv.Atoi(start)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(r, ",0") {
			s-- // a non-empty range starts at line s (1-based)
		}
		for next < s {
			out = append(out, al[next])
			next++
		}
		i++
		for ; i < len(dl) && dl[i] != "" && !strings.HasPrefix(dl[i], "@@"); i++ {
			line := dl[i][1:]
			if i+1 < len(dl) && dl[i+1] == "\\ No newline at end of file\n" {
				line = strings.TrimSuffix(line, "\n")
			}
			switch dl[i][0] {
			case ' ':
				if al[next] != line {
					t.Fatalf("context %q does not match %q", line, al[next])
				}
				out = append(out, line)
				next++
			case '-':
				if al[next] != line {
					t.Fatalf("removed %q does not match %q", line, al[next])
				}
				next++
			case '+':
				out = append(out, line)
			case '\\':
			default:
				t.Fatalf("bad diff line %q", dl[i])
			}
		}
	}
	out = append(out, al[next:]...)
	return strings.Join(out, "")
}

// lcsLen is the length of a longest common subsequence, by dynamic
// programming.
func lcsLen(a, b []string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(string(rune('a' + r.IntN(5))))
		if r.IntN(10) > 0 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func TestUnifiedRandomIsMinimalAndApplies(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		a, b := randomText(r, r.IntN(30)), randomText(r, r.IntN(30))
		if i%3 == 0 { // a small edit of a, the usual case
			b = a[:r.IntN(len(a)+1)] + randomText(r, r.IntN(3)) + a[len(a)/2:]
		}
		ctx := r.IntN(4)
		d := unified("a/f", "b/f", a, b, ctx)
		if got := applyUnified(t, a, d); got != b {
			t.Fatalf("a=%q b=%q ctx=%d: patch gives %q\n%s", a, b, ctx, got, d)
		}
		al, bl := splitLines(a), splitLines(b)
		del, ins := diffLines(al, bl, diffBudget)
		changed := 0
		for _, x := range del {
			if x {
				changed++
			}
		}
		for _, x := range ins {
			if x {
				changed++
			}
		}
		if want := len(al) + len(bl) - 2*lcsLen(al, bl); changed != want {
			t.Fatalf("a=%q b=%q: %d lines changed, minimal is %d", a, b, changed, want)
		}
	}
}

func TestUnifiedBudgetFallback(t *testing.T) {
	t.Parallel()
	// Interleaved shared lines make every region expensive; with a tiny
	// budget the diff is no longer minimal but must still apply.
	var a, b bytes.Buffer
	for i := range 400 {
		a.WriteString(strconv.Itoa(i%7) + "\n")
		b.WriteString(strconv.Itoa(i*3%7) + "\n")
	}
	al, bl := splitLines(a.String()), splitLines(b.String())
	count := func(budget int) int {
		del, ins := diffLines(al, bl, budget)
		// Check that what is kept of both sides is the same sequence.
		var ka, kb []string
		for i, x := range del {
			if !x {
				ka = append(ka, al[i])
			}
		}
		for j, x := range ins {
			if !x {
				kb = append(kb, bl[j])
			}
		}
		if d := cmp.Diff(ka, kb); d != "" {
			t.Fatalf("budget %d: kept lines differ:\n%s", budget, d)
		}
		return len(ka)
	}
	full, cheap := count(diffBudget), count(100)
	if want := lcsLen(al, bl); full != want {
		t.Errorf("full budget kept %d lines, want %d", full, want)
	}
	if cheap >= full {
		t.Errorf("budget 100 kept %d lines, want fewer than %d (the fallback did not run)", cheap, full)
	}
}

// BenchmarkDiffLarge diffs two 1 MiB files: one with scattered edits, and
// one whose lines come from the same small set in a different order (the
// worst case, bounded by diffBudget).
func BenchmarkDiffLarge(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	var a, edited, shuffled strings.Builder
	for a.Len() < 1<<20 {
		line := "line " + strconv.Itoa(a.Len()) + " of the file, with some text\n"
		a.WriteString(line)
		if r.IntN(50) == 0 {
			edited.WriteString("changed " + line)
		} else {
			edited.WriteString(line)
		}
	}
	for shuffled.Len() < 1<<20 {
		shuffled.WriteString("x" + strconv.Itoa(r.IntN(40)) + "\n")
	}
	var same strings.Builder
	for same.Len() < 1<<20 {
		same.WriteString("x" + strconv.Itoa(r.IntN(40)) + "\n")
	}
	for name, pair := range map[string][2]string{
		"scattered edits": {a.String(), edited.String()},
		"shuffled":        {shuffled.String(), same.String()},
	} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				unified("a/f", "b/f", pair[0], pair[1], 3)
			}
		})
	}
}
