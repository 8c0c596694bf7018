package pluginstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestInstallCopiesAndRecords(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	src := pluginAs(t, "anything", "")
	before := time.Now().UTC().Add(-time.Second)
	e := install(t, s, src)

	want := Entry{Name: "echo", File: "ramabana-plugin-echo", Version: "0.0.1", Protocol: 1, SHA256: sha(t, testPlugin), Source: src}
	if diff := cmp.Diff(want, e, cmpopts.IgnoreFields(Entry{}, "InstalledAt")); diff != "" {
		t.Errorf("entry (-want +got):\n%s", diff)
	}
	if e.InstalledAt.Before(before) || e.InstalledAt.After(time.Now().UTC()) {
		t.Errorf("installed_at %v is not now", e.InstalledAt)
	}

	// The binary: same bytes, mode 0755, under the plugin's own name.
	dst := filepath.Join(s.Dir(), "ramabana-plugin-echo")
	got, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile(src)
	if !bytes.Equal(got, orig) {
		t.Error("installed binary differs from its source")
	}
	if fi, _ := os.Stat(dst); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v, want 0755", fi.Mode().Perm())
	}
	// No temp file left behind.
	if diff := cmp.Diff([]string{".lock", "ramabana-plugin-echo", LockFileName}, dirNames(t, s.Dir())); diff != "" {
		t.Errorf("dir (-want +got):\n%s", diff)
	}

	// The lock file, as JSON.
	b, err := os.ReadFile(filepath.Join(s.Dir(), LockFileName))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	wantRaw := map[string]any{"version": 1.0, "plugins": map[string]any{"echo": map[string]any{
		"file": "ramabana-plugin-echo", "version": "0.0.1", "protocol": 1.0, "sha256": e.SHA256,
		"installed_at": e.InstalledAt.Format(time.RFC3339), "source": src,
	}}}
	if diff := cmp.Diff(wantRaw, raw); diff != "" {
		t.Errorf("lock file (-want +got):\n%s", diff)
	}
	lock, err := s.Lock()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]Entry{"echo": e}, lock.Plugins); diff != "" {
		t.Errorf("Lock (-want +got):\n%s", diff)
	}
}

func TestInstallReplaces(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	first := install(t, s, pluginAs(t, "echo", ""))
	if first.Replaced != nil {
		t.Errorf("first install replaced %+v", first.Replaced)
	}
	src := pluginAs(t, "echo", "v2")
	second := install(t, s, src)
	if second.Replaced == nil || second.Replaced.SHA256 != first.SHA256 {
		t.Fatalf("second install: Replaced = %+v, want the first entry", second.Replaced)
	}
	if second.SHA256 == first.SHA256 || second.SHA256 != sha(t, src) {
		t.Errorf("sha256 %s, want the new binary's %s", second.SHA256, sha(t, src))
	}
	if got := sha(t, s.Path("echo")); got != second.SHA256 {
		t.Errorf("installed binary sha256 %s, want %s", got, second.SHA256)
	}
	lock, err := s.Lock()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"echo"}, lock.Names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}

	// Reinstalling the installed file in place (to accept a changed binary)
	// keeps the original source.
	appendByte(t, s.Path("echo"))
	third := install(t, s, s.Path("echo"))
	if third.Source != src || third.SHA256 != sha(t, s.Path("echo")) {
		t.Errorf("in-place reinstall: source %q sha %s; want source %q and the changed hash", third.Source, third.SHA256, src)
	}
	if err := s.Check(s.Path("echo")); err != nil {
		t.Errorf("check after in-place reinstall: %v", err)
	}
}

func TestInstallRefusesWhatIsNotAPlugin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := map[string]struct {
		path string
		want string
	}{
		"exits at once":             {"/bin/true", "/bin/true is not a ramabana plugin"},
		"prints junk":               {write("junk.sh", "#!/bin/sh\necho hello, world\n", 0o755), "junk.sh is not a ramabana plugin"},
		"junk then hangs":           {pluginAs(t, "nohandshake", ""), "is not a ramabana plugin"},
		"wrong cookie":              {pluginAs(t, "badcookie", ""), "is not a ramabana plugin"},
		"crashes":                   {pluginAs(t, "exits", ""), "is not a ramabana plugin"},
		"a tool the server refuses": {pluginAs(t, "nokind", ""), `tool "kindless": declares no kind`},
		"not executable":            {write("plain", "data", 0o644), "not executable"},
		"a directory":               {dir, "not a regular file"},
		"missing":                   {filepath.Join(dir, "nope"), "no such file"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := openStore(t)
			_, err := s.Install(context.Background(), tc.path, describe)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if names := dirNames(t, s.Dir()); names != nil {
				t.Errorf("store dir written: %v", names)
			}
		})
	}
}

// TestInstallRefusesABadDescription: whatever the describer passes, the
// store never writes a file whose name comes from a bad plugin name; the
// real describer (the server's launcher) refuses what the server refuses.
func TestInstallRefusesABadDescription(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		desc Description
		want string
	}{
		"bad name":  {Description{Name: "Echo!", Groups: []string{"echo"}}, `its name "Echo!"`},
		"path name": {Description{Name: "../x", Groups: []string{"echo"}}, `its name "../x"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := openStore(t)
			fake := func(context.Context, string) (*Description, error) { return &tc.desc, nil }
			_, err := s.Install(context.Background(), testPlugin, fake)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if names := dirNames(t, s.Dir()); names != nil {
				t.Errorf("store dir written: %v", names)
			}
		})
	}
}

func TestConcurrentInstallsKeepBothEntries(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	srcs := []string{pluginAs(t, "echo", ""), pluginAs(t, "shadow", "")}
	errs := make([]error, len(srcs))
	var wg sync.WaitGroup
	for i, src := range srcs {
		wg.Go(func() {
			// A store of its own, as another process would have.
			other, err := Open(s.Dir())
			if err == nil {
				_, err = other.Install(context.Background(), src, describe)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	lock, err := s.Lock()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"echo", "shadow"}, lock.Names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	for _, name := range lock.Names() {
		if err := s.Check(s.Path(name)); err != nil {
			t.Error(err)
		}
	}
}
