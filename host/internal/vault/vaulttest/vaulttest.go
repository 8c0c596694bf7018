// Package vaulttest opens vaults for tests.
package vaulttest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ramabana/ramabana-mcp/host/internal/vault"
)

// Open opens a new vault in a config dir of the test's own, for the
// scope of that dir, and closes it when the test ends.
func Open(t testing.TB) *vault.Vault {
	t.Helper()
	cfg := t.TempDir()
	v, err := vault.Open(context.Background(), filepath.Join(cfg, vault.DBName), filepath.Join(cfg, vault.KeyName), vault.Scope([]string{cfg}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Close() })
	return v
}
