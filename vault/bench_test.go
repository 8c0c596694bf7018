package vault_test

import (
	"fmt"
	"testing"

	"github.com/ramabana/ramabana-mcp/pii"
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
