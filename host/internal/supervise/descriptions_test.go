package supervise

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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

// TestDescriptionsEntriesStandAlone: each kept description is read only
// when looked up, so one that does not decode is a miss for its own key
// alone: the others load, and storing another keeps them.
func TestDescriptionsEntriesStandAlone(t *testing.T) {
	t.Parallel()
	c := Descriptions{Dir: t.TempDir()}
	good := &sdk.Description{Name: "echo", Version: "1.0.0"}
	if err := c.Store("echo", "good", good); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(c.file("echo"))
	if err != nil {
		t.Fatal(err)
	}
	// A second entry whose description is not one (a string).
	broken := strings.Replace(string(raw), `"entries":[`, `"entries":[{"key":"broken","stored":"2026-12-05T00:00:00Z","description":"not a description"},`, 1)
	if err := os.WriteFile(c.file("echo"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Load("echo", "broken"); ok {
		t.Errorf("a description that does not decode was loaded")
	}
	if d, ok := c.Load("echo", "good"); !ok || d.Version != "1.0.0" {
		t.Errorf("the good entry beside a broken one: %+v, %v", d, ok)
	}
	if err := c.Store("echo", "next", &sdk.Description{Name: "echo", Version: "2.0.0"}); err != nil {
		t.Fatal(err)
	}
	for key, version := range map[string]string{"next": "2.0.0", "good": "1.0.0"} {
		if d, ok := c.Load("echo", key); !ok || d.Version != version {
			t.Errorf("after another was stored, %s: %+v, %v", key, d, ok)
		}
	}
}
