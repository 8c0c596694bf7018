package pii

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fixture is one line of a testdata file.
type fixture struct {
	line int
	kind Kind
	text string
}

// readFixtures reads testdata/name: blank lines and lines starting with #
// are skipped, "\n" stands for a line break and "\\" for a backslash, and
// with kinds set each line is "kind<TAB>text".
func readFixtures(t *testing.T, name string, kinds bool) []fixture {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []fixture
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fx := fixture{line: n, text: line}
		if kinds {
			k, text, ok := strings.Cut(line, "\t")
			if !ok {
				t.Fatalf("%s:%d: want kind<TAB>text", name, n)
			}
			fx.kind, fx.text = Kind(k), text
		}
		fx.text = unescape(fx.text)
		out = append(out, fx)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case 'n':
				b.WriteByte('\n')
				i++
				continue
			case '\\':
				b.WriteByte('\\')
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unmark removes the «» marks from text and returns the marked spans as
// findings of kind k.
func unmark(t *testing.T, text string, k Kind) (string, []Finding) {
	t.Helper()
	var (
		b    strings.Builder
		want []Finding
	)
	for {
		i := strings.Index(text, "«")
		if i < 0 {
			b.WriteString(text)
			return b.String(), want
		}
		b.WriteString(text[:i])
		text = text[i+len("«"):]
		j := strings.Index(text, "»")
		if j < 0 {
			t.Fatalf("unclosed « in %q", text)
		}
		start := b.Len()
		b.WriteString(text[:j])
		want = append(want, Finding{k, start, b.Len()})
		text = text[j+len("»"):]
	}
}

func TestPositives(t *testing.T) {
	t.Parallel()
	for _, fx := range readFixtures(t, "positives.txt", true) {
		t.Run(fmt.Sprintf("line %d", fx.line), func(t *testing.T) {
			t.Parallel()
			text, want := unmark(t, fx.text, fx.kind)
			if len(want) == 0 {
				t.Fatalf("positives.txt:%d: no «marked» span", fx.line)
			}
			got := Find(text)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("positives.txt:%d: Find(%q) (-want +got):\n%s%s", fx.line, text, diff, show(text, got))
			}
		})
	}
}

func TestNegatives(t *testing.T) {
	t.Parallel()
	for _, fx := range readFixtures(t, "negatives.txt", false) {
		t.Run(fmt.Sprintf("line %d", fx.line), func(t *testing.T) {
			t.Parallel()
			if got := Find(fx.text); len(got) != 0 {
				t.Errorf("negatives.txt:%d: Find(%q) found %v%s", fx.line, fx.text, got, show(fx.text, got))
			}
		})
	}
}

// show quotes the text of each finding, for failure messages.
func show(text string, fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("\n\t" + string(f.Kind) + ": «" + text[f.Start:f.End] + "»")
	}
	return b.String()
}
