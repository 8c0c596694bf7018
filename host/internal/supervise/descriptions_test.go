package supervise

import (
	"os"
	"path/filepath"
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
