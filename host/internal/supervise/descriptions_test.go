package supervise

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ramabana/ramabana-mcp/internal/launch"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// TestInstalledDescriptionKey: what install records is found by a server
// in any folder, with any environment and config dir, as long as the
// binary and the permissions are the same; another binary (rewritten in
// place) or other permissions miss it.
func TestInstalledDescriptionKey(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), PluginPrefix+"echo")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := Source{Name: "echo", Path: bin}
	atInstall := sdk.Host{Roots: []string{"/home/u/plugins"}, Web: true, ConfigDir: "/home/u/.config/ramabana-mcp", HostVersion: "v1.2.0"}
	key := InstalledDescriptionKey(src, atInstall)

	server := atInstall
	server.Roots, server.ConfigDir = []string{"/home/u/project", "/home/u/lib"}, "/cfg"
	p := New(src, Config{Host: server, Launch: launch.Options{Env: []string{"PATH=/elsewhere"}}})
	if got := p.InstalledDescriptionKey(); got != key {
		t.Errorf("a server in another folder, with another config dir and environment, misses what install recorded")
	}
	if p.DescriptionKey() == key {
		t.Errorf("the installed key is the launch key: the roots and the environment would not count where they must")
	}

	for name, change := range map[string]func(*sdk.Host){
		"write":        func(h *sdk.Host) { h.Write = true },
		"commands":     func(h *sdk.Host) { h.Commands = true },
		"no web":       func(h *sdk.Host) { h.Web = false },
		"read outside": func(h *sdk.Host) { h.ReadOutside = true },
		"no sandbox":   func(h *sdk.Host) { h.NoSandbox = true },
		"host version": func(h *sdk.Host) { h.HostVersion = "v1.3.0" },
	} {
		h := server
		change(&h)
		if InstalledDescriptionKey(src, h) == key {
			t.Errorf("%s: same key as the permissions install described with", name)
		}
	}
	if InstalledDescriptionKey(Source{Name: "other", Path: bin}, atInstall) == key {
		t.Errorf("another plugin name: same key")
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if InstalledDescriptionKey(src, atInstall) == key {
		t.Errorf("the binary rewritten: same key")
	}
}

// key is a description key made of s.
func key(s string) string { return hashKey([]string{s}) }

// TestDescriptionsEntriesStandAlone: each kept description is a file read
// only when looked up, so one that does not decode is a miss for its own
// key alone: the others load, and storing another keeps them.
func TestDescriptionsEntriesStandAlone(t *testing.T) {
	t.Parallel()
	c := Descriptions{Dir: t.TempDir()}
	good, broken, next := key("good"), key("broken"), key("next")
	if err := c.Store("echo", good, &sdk.Description{Name: "echo", Version: "1.0.0"}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.Dir, "echo", broken+".json"), []byte(`"not a description"`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Load("echo", broken); ok {
		t.Errorf("a description that does not decode was loaded")
	}
	if d, ok := c.Load("echo", good); !ok || d.Version != "1.0.0" {
		t.Errorf("the good entry beside a broken one: %+v, %v", d, ok)
	}
	if err := c.Store("echo", next, &sdk.Description{Name: "echo", Version: "2.0.0"}); err != nil {
		t.Fatal(err)
	}
	for k, version := range map[string]string{next: "2.0.0", good: "1.0.0"} {
		if d, ok := c.Load("echo", k); !ok || d.Version != version {
			t.Errorf("after another was stored, %s: %+v, %v", k, d, ok)
		}
	}
	if err := c.Forget("echo", good); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Load("echo", good); ok {
		t.Errorf("a forgotten entry still loads")
	}
	if _, ok := c.Load("echo", next); !ok {
		t.Errorf("forgetting one entry lost another")
	}
}

// TestDescriptionsKeepTheNewest: a plugin keeps maxEntries descriptions;
// storing one more removes the one stored longest ago, and a file of the
// format before one file per entry is removed at the first store.
func TestDescriptionsKeepTheNewest(t *testing.T) {
	t.Parallel()
	c := Descriptions{Dir: t.TempDir()}
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(c.Dir, "echo.json")
	if err := os.WriteFile(old, []byte(`{"entries":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	base := time.Now().Add(-time.Hour)
	n := maxEntries + 3
	for i := range n {
		k := key(fmt.Sprint(i))
		if err := c.Store("echo", k, &sdk.Description{Name: "echo", Version: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
		// Stored a second apart, whatever the file system's clock.
		at := base.Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(filepath.Join(c.Dir, "echo", k+".json"), at, at); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		_, ok := c.Load("echo", key(fmt.Sprint(i)))
		if want := i >= n-maxEntries; ok != want {
			t.Errorf("entry %d of %d kept: %v, want %v", i, n, ok, want)
		}
	}
	if _, err := os.Stat(old); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the file of the earlier format is still there (%v)", err)
	}

	// A store's temporary file left by a process that ended mid-write
	// goes at the next store once it is old; a recent one may be another
	// server's write under way, and stays.
	stale, fresh := filepath.Join(c.Dir, "echo", ".x.json.1.tmp"), filepath.Join(c.Dir, "echo", ".y.json.2.tmp")
	for _, f := range []string{stale, fresh} {
		if err := os.WriteFile(f, []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if long := base.Add(-time.Minute); os.Chtimes(stale, long, long) != nil {
		t.Fatal("cannot age the temporary file")
	}
	if err := c.Store("echo", key("last"), &sdk.Description{Name: "echo"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a temporary file an hour old is still there (%v)", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a fresh temporary file was removed: %v", err)
	}
}

// TestDescriptionsRefuseNamesOutsideTheirFolder: a plugin name or key
// that would name a file elsewhere keeps nothing and loads nothing.
func TestDescriptionsRefuseNamesOutsideTheirFolder(t *testing.T) {
	t.Parallel()
	c := Descriptions{Dir: filepath.Join(t.TempDir(), "descriptions")}
	d := &sdk.Description{Name: "echo"}
	for _, bad := range []struct{ name, key string }{
		{"echo", "../../x"}, {"echo", ""}, {"echo", "NOTHEX"}, {"../echo", key("a")}, {".hidden", key("a")},
	} {
		if err := c.Store(bad.name, bad.key, d); err == nil {
			t.Errorf("Store(%q, %q) kept it", bad.name, bad.key)
		}
		if _, ok := c.Load(bad.name, bad.key); ok {
			t.Errorf("Load(%q, %q) loaded", bad.name, bad.key)
		}
	}
	if _, err := os.Stat(filepath.Dir(c.Dir)); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(c.Dir)); len(entries) != 0 {
		t.Errorf("files written: %v", entries)
	}
}
