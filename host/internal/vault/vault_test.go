package vault_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ramabana/ramabana-mcp/host/internal/pii"
	"github.com/ramabana/ramabana-mcp/host/internal/vault"
	"github.com/ramabana/ramabana-mcp/internal/sqlitedb"
)

// openIn opens the vault of config dir cfg, closed at the test's end.
func openIn(t testing.TB, cfg string) *vault.Vault {
	t.Helper()
	return openScope(t, cfg, testScope)
}

var testScope = vault.Scope([]string{"/srv/project"})

// openScope opens the vault of config dir cfg for one scope.
func openScope(t testing.TB, cfg, scope string) *vault.Vault {
	t.Helper()
	v, err := vault.Open(context.Background(), filepath.Join(cfg, vault.DBName), filepath.Join(cfg, vault.KeyName), scope)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Close() })
	return v
}

func holders(t *testing.T, v *vault.Vault, values ...pii.Value) []string {
	t.Helper()
	out, err := v.Placeholders(values)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPlaceholdersAreStableAndCountPerKind(t *testing.T) {
	cfg := t.TempDir()
	v := openIn(t, cfg)
	jane, bob := pii.Value{Kind: pii.Email, Text: "jane@acme.io"}, pii.Value{Kind: pii.Email, Text: "bob@corp.org"}
	phone := pii.Value{Kind: pii.Phone, Text: "+44 20 7946 0958"}
	got := holders(t, v, jane, phone, jane, bob)
	want := []string{"⟦email:1⟧", "⟦phone:1⟧", "⟦email:1⟧", "⟦email:2⟧"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("placeholders = %v, want %v", got, want)
	}
	// The same text of another kind is another value.
	if got := holders(t, v, pii.Value{Kind: pii.Secret, Text: "jane@acme.io"}); got[0] != "⟦secret:1⟧" {
		t.Errorf("same text as a secret = %v", got)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	// A restarted server (a new Vault on the same files) gives the same
	// placeholders and goes on counting.
	again := openIn(t, cfg)
	got = holders(t, again, bob, jane, pii.Value{Kind: pii.Email, Text: "eve@corp.org"})
	want = []string{"⟦email:2⟧", "⟦email:1⟧", "⟦email:3⟧"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after reopening: %v, want %v", got, want)
	}
	text, err := again.Reveal("to: ⟦email:1⟧, ⟦email:3⟧; call ⟦phone:1⟧")
	if err != nil || text != "to: jane@acme.io, eve@corp.org; call +44 20 7946 0958" {
		t.Errorf("Reveal = %q, %v", text, err)
	}
}

// TestFilesHoldNoPlaintext: the database (and its WAL) hold no value in
// the clear, and the database and key are private to the user.
func TestFilesHoldNoPlaintext(t *testing.T) {
	cfg := t.TempDir()
	v := openIn(t, cfg)
	values := []pii.Value{
		{Kind: pii.Email, Text: "jane.doe@acme.io"},
		{Kind: pii.Card, Text: "4111 1111 1111 1111"},
		{Kind: pii.Secret, Text: "sk-live-0123456789abcdefABCDEF"},
	}
	holders(t, v, values...)
	for _, name := range []string{vault.DBName, vault.DBName + "-wal", vault.KeyName} {
		info, err := os.Stat(filepath.Join(cfg, name))
		if err != nil {
			t.Fatal(err)
		}
		if perm := info.Mode().Perm(); perm != 0o600 {
			t.Errorf("%s has mode %04o, want 0600", name, perm)
		}
	}
	check := func() {
		entries, err := os.ReadDir(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(cfg, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			for _, val := range values {
				for _, part := range []string{val.Text, "jane.doe", "4111111111111111", "0123456789abcdef"} {
					if bytes.Contains(b, []byte(part)) || bytes.Contains(b, []byte(strings.ToUpper(part))) {
						t.Errorf("%s holds %q in the clear", e.Name(), part)
					}
				}
			}
		}
	}
	check()
	if err := v.Close(); err != nil { // checkpoints the WAL into the file
		t.Fatal(err)
	}
	check()
}

func TestKeyProblemsAreClearErrors(t *testing.T) {
	ctx := context.Background()
	newVault := func(t *testing.T) (db, key string) {
		cfg := t.TempDir()
		db, key = filepath.Join(cfg, vault.DBName), filepath.Join(cfg, vault.KeyName)
		v, err := vault.Open(ctx, db, key, testScope)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.Placeholders([]pii.Value{{Kind: pii.Email, Text: "a@b.org"}}); err != nil {
			t.Fatal(err)
		}
		if err := v.Close(); err != nil {
			t.Fatal(err)
		}
		return db, key
	}
	t.Run("missing key", func(t *testing.T) {
		db, key := newVault(t)
		if err := os.Remove(key); err != nil {
			t.Fatal(err)
		}
		_, err := vault.Open(ctx, db, key, testScope)
		if err == nil || !strings.Contains(err.Error(), "is missing") {
			t.Fatalf("err = %v, want the key is missing", err)
		}
		if _, err := os.Stat(key); err == nil {
			t.Error("a new key was made for a vault that holds values")
		}
	})
	t.Run("another vault's key", func(t *testing.T) {
		db, key := newVault(t)
		_, otherKey := newVault(t)
		b, err := os.ReadFile(otherKey)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(key, b, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err = vault.Open(ctx, db, key, testScope)
		if err == nil || !strings.Contains(err.Error(), "does not open") {
			t.Fatalf("err = %v, want the key does not open the vault", err)
		}
	})
	t.Run("key others can read", func(t *testing.T) {
		db, key := newVault(t)
		if err := os.Chmod(key, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := vault.Open(ctx, db, key, testScope)
		if err == nil || !strings.Contains(err.Error(), "chmod 600") {
			t.Fatalf("err = %v, want chmod 600", err)
		}
	})
	t.Run("not a key", func(t *testing.T) {
		db, key := newVault(t)
		if err := os.WriteFile(key, []byte("hunter2\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := vault.Open(ctx, db, key, testScope)
		if err == nil || !strings.Contains(err.Error(), "not a vault key") {
			t.Fatalf("err = %v, want not a vault key", err)
		}
	})
	t.Run("key kept elsewhere", func(t *testing.T) {
		cfg := t.TempDir()
		elsewhere := filepath.Join(t.TempDir(), "secrets", "ramabana.key")
		t.Setenv(vault.KeyFileEnv, elsewhere)
		if got := vault.KeyPath(cfg); got != elsewhere {
			t.Fatalf("KeyPath = %s, want $%s", got, vault.KeyFileEnv)
		}
		v, err := vault.Open(ctx, filepath.Join(cfg, vault.DBName), vault.KeyPath(cfg), testScope)
		if err != nil {
			t.Fatal(err)
		}
		_ = v.Close()
		if _, err := os.Stat(elsewhere); err != nil {
			t.Errorf("no key at $%s: %v", vault.KeyFileEnv, err)
		}
		if _, err := os.Stat(filepath.Join(cfg, vault.KeyName)); err == nil {
			t.Error("a key was written beside the database too")
		}
	})
}

// TestTamperedRowDoesNotOpen: a sealed value moved to another placeholder's
// row is refused, never read as the other's value.
func TestTamperedRowDoesNotOpen(t *testing.T) {
	cfg := t.TempDir()
	v := openIn(t, cfg)
	holders(t, v, pii.Value{Kind: pii.Email, Text: "jane@acme.io"}, pii.Value{Kind: pii.Email, Text: "bob@corp.org"})
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sqlitedb.Open(filepath.Join(cfg, vault.DBName), "vault", 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE entries SET sealed = (SELECT sealed FROM entries WHERE n = 2) WHERE n = 1`); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	_, err = vault.Open(context.Background(), filepath.Join(cfg, vault.DBName), filepath.Join(cfg, vault.KeyName), testScope)
	if err == nil || !strings.Contains(err.Error(), "tampered") {
		t.Errorf("opening a tampered vault: %v; want an error", err)
	}
}

func TestRevealJSON(t *testing.T) {
	v := openIn(t, t.TempDir())
	holders(t, v, pii.Value{Kind: pii.Email, Text: "jane@acme.io"}, pii.Value{Kind: pii.Phone, Text: "+1 415 555 0100"}, pii.Value{Kind: pii.Secret, Text: "a \"b\"\\c\n"})
	for name, tc := range map[string]struct{ in, want, err string }{
		"none":          {in: `{"path":"a.txt", "n": 1.50}`, want: `{"path":"a.txt", "n": 1.50}`},
		"strings":       {in: `{"old":"mail ⟦email:1⟧","new":"call ⟦phone:1⟧ or ⟦email:1⟧"}`, want: `{"old":"mail jane@acme.io","new":"call +1 415 555 0100 or jane@acme.io"}`},
		"nested, keys":  {in: `{"edits":[{"text":"⟦email:1⟧","n":12345678901234567890}],"⟦phone:1⟧":true}`, want: `{"edits":[{"text":"jane@acme.io","n":12345678901234567890}],"+1 415 555 0100":true}`},
		"escaped":       {in: `{"new":"\u27e6email:1\u27E7 <b> ⟦email:1⟧"}`, want: `{"new":"\u27e6email:1\u27E7 <b> jane@acme.io"}`},
		"quoted value":  {in: `{"new":"⟦secret:1⟧"}`, want: `{"new":"a \"b\"\\c\n"}`},
		"unknown":       {in: `{"new":"⟦email:1⟧ ⟦email:7⟧ ⟦card:2⟧ ⟦email:7⟧"}`, err: "email:7, card:2 are not a placeholder this server gave out"},
		"not shaped":    {in: `{"new":"⟦email:0⟧ ⟦Email:1⟧ ⟦email:⟧ [email:1]"}`, want: `{"new":"⟦email:0⟧ ⟦Email:1⟧ ⟦email:⟧ [email:1]"}`},
		"not JSON":      {in: `{"new":"⟦email:1⟧"`, want: `{"new":"jane@acme.io"`},
		"one unknown":   {in: `["⟦secret:2⟧"]`, err: "secret:2 is not a placeholder"},
		"in an array":   {in: `["⟦email:1⟧", 3, null]`, want: `["jane@acme.io", 3, null]`},
		"top level str": {in: `"⟦email:1⟧"`, want: `"jane@acme.io"`},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := v.RevealJSON(json.RawMessage(tc.in))
			if tc.err != "" {
				if _, ok := errors.AsType[*vault.UnknownError](err); !ok || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want an *UnknownError with %q", err, tc.err)
				}
				if strings.Contains(err.Error(), "⟦") {
					t.Errorf("the error holds a placeholder's bracket: %v", err)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Errorf("RevealJSON = %s, %v; want %s", got, err, tc.want)
			}
		})
	}
}

// TestProcessesShareAVault: two servers on one config dir (two Vaults on
// one file, as two processes) adding values at once agree on every
// placeholder and never give two values one number.
func TestProcessesShareAVault(t *testing.T) {
	cfg := t.TempDir()
	a, b := openIn(t, cfg), openIn(t, cfg)
	const n = 40
	results := make([][]string, 2)
	var wg sync.WaitGroup
	for i, v := range []*vault.Vault{a, b} {
		wg.Go(func() {
			for j := range n {
				// Both ask for every value, in opposite orders.
				k := j
				if i == 1 {
					k = n - 1 - j
				}
				got, err := v.Placeholders([]pii.Value{{Kind: pii.Email, Text: fmt.Sprintf("user%d@corp.org", k)}})
				if err != nil {
					t.Error(err)
					return
				}
				results[i] = append(results[i], got[0])
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	seen := map[string]int{}
	for j := range n {
		ha, hb := results[0][j], results[1][n-1-j]
		if ha != hb {
			t.Errorf("user%d: %s in one process, %s in the other", j, ha, hb)
		}
		if prev, dup := seen[ha]; dup {
			t.Errorf("%s given to user%d and user%d", ha, prev, j)
		}
		seen[ha] = j
	}
}

// TestScopes: a server on other folders has placeholders of its own: it
// neither reveals nor finds another project's values, and counts anew.
func TestScopes(t *testing.T) {
	cfg := t.TempDir()
	a := openScope(t, cfg, vault.Scope([]string{"/srv/a", "/srv/b"}))
	holders(t, a, pii.Value{Kind: pii.Card, Text: "4111 1111 1111 1111"})
	same := openScope(t, cfg, vault.Scope([]string{"/srv/b", "/srv/a/", "/srv/a"}))
	if got, err := same.Reveal("⟦card:1⟧"); err != nil || got != "4111 1111 1111 1111" {
		t.Errorf("the same folders in another order: %q, %v", got, err)
	}
	other := openScope(t, cfg, vault.Scope([]string{"/srv/c"}))
	if _, err := other.Reveal("⟦card:1⟧"); err == nil {
		t.Error("another project's server revealed ⟦card:1⟧")
	}
	if fs := other.FindKnown("card 4111 1111 1111 1111", nil); len(fs) != 0 {
		t.Errorf("another project's server knows its values: %v", fs)
	}
	if got := holders(t, other, pii.Value{Kind: pii.Card, Text: "5500 0000 0000 0004"}); got[0] != "⟦card:1⟧" {
		t.Errorf("another project counts on from the first: %v", got)
	}
}

// TestKnownValuesAreFoundAnywhere: a value the vault keeps is found by its
// text wherever it was written, whatever surrounds it, after a restart too.
func TestKnownValuesAreFoundAnywhere(t *testing.T) {
	cfg := t.TempDir()
	v := openIn(t, cfg)
	holders(t, v, pii.Value{Kind: pii.Card, Text: "4111 1111 1111 1111"}, pii.Value{Kind: pii.Email, Text: "al@x.io"})
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	again := openIn(t, cfg)
	f := pii.Filter{Mode: pii.ModeRedact, Vault: again}
	for in, want := range map[string]string{
		"A4111 1111 1111 11119":        "A⟦card:1⟧9",
		"n4111 1111 1111 1111n.txt":    "n⟦card:1⟧n.txt",
		"to:al@x.io;cc:al@x.io.uk":     "to:⟦email:1⟧;cc:⟦email:2⟧", // another address
		"4111 1111 1111 111 (cut off)": "4111 1111 1111 111 (cut off)",
	} {
		if got, _ := f.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
