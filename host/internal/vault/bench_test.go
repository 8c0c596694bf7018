package vault_test

import (
	"fmt"
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ramabana/ramabana-mcp/host/internal/pii"
)

// BenchmarkPlaceholders: a result's findings, 100 at a time, the first time
// (one transaction that keeps them all) and again (from memory).
func BenchmarkPlaceholders(b *testing.B) {
	batch := func(i int) []pii.Value {
		values := make([]pii.Value, 100)
		for j := range values {
			values[j] = pii.Value{Kind: pii.Email, Text: fmt.Sprintf("user%d.%d@corp.org", i, j)}
		}
		return values
	}
	b.Run("new", func(b *testing.B) {
		v := openIn(b, b.TempDir())
		i := 0
		for b.Loop() {
			if _, err := v.Placeholders(batch(i)); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("known", func(b *testing.B) {
		v := openIn(b, b.TempDir())
		values := batch(0)
		if _, err := v.Placeholders(values); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := v.Placeholders(values); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkRedactSource: --pii over a megabyte of Go source, without a
// vault and with one holding 1,000 values (found by their text too).
func BenchmarkRedactSource(b *testing.B) {
	var sb strings.Builder
	for _, dir := range []string{"net/http", "go/types", "runtime"} {
		files, _ := filepath.Glob(filepath.Join(build.Default.GOROOT, "src", dir, "*.go"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			sb.Write(data)
		}
	}
	if sb.Len() < 1<<20 {
		b.Skip("Go source tree not found")
	}
	text := sb.String()[:1<<20]
	v := openIn(b, b.TempDir())
	values := make([]pii.Value, 1000)
	for i := range values {
		values[i] = pii.Value{Kind: pii.Email, Text: fmt.Sprintf("person%d@corp.org", i)}
	}
	if _, err := v.Placeholders(values); err != nil {
		b.Fatal(err)
	}
	for name, f := range map[string]pii.Filter{
		"patterns": {Mode: pii.ModeRedact},
		"vault":    {Mode: pii.ModeRedact, Vault: v},
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				f.Redact(text)
			}
		})
	}
}
