package pii

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzRedact checks the contract for any input: findings in range, sorted,
// non-overlapping, of known kinds, and Redact's output rebuilt from them. The
// fixtures are its seed corpus, so a plain go test runs every seed once; run
// go test -fuzz FuzzRedact ./pii to search further.
func FuzzRedact(f *testing.F) {
	for _, name := range []string{"positives.txt", "negatives.txt", "mixed.txt"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if _, text, ok := strings.Cut(line, "\t"); ok {
				line = text
			}
			f.Add(unescape(strings.NewReplacer("«", "", "»", "").Replace(line)))
		}
		f.Add(string(data))
	}
	f.Add("")
	f.Add("@@@@a@b.cc@")
	f.Add("+(((((1)))))")
	f.Add("-----BEGIN PRIVATE KEY-----")
	f.Add("token = \"")
	f.Fuzz(func(t *testing.T, text string) {
		got, fs := Redact(text)
		last := 0
		var b strings.Builder
		for i, f := range fs {
			if f.Start < last || f.Start >= f.End || f.End > len(text) {
				t.Fatalf("finding %d %+v out of order, empty or out of range (previous end %d, len %d): %v", i, f, last, len(text), fs)
			}
			if f.Kind.priority() == 0 {
				t.Fatalf("finding %d has unknown kind %q", i, f.Kind)
			}
			b.WriteString(text[last:f.Start] + "[REDACTED:" + string(f.Kind) + "]")
			last = f.End
		}
		b.WriteString(text[last:])
		if got != b.String() {
			t.Fatalf("Redact output %q does not match its findings (want %q)", got, b.String())
		}
		if len(Find(text)) != len(fs) {
			t.Fatalf("Find and Redact disagree")
		}
	})
}
