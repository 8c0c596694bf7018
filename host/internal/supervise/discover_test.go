package supervise

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/host/internal/catalog"
)

func TestDiscover(t *testing.T) {
	t.Parallel()
	first, second := t.TempDir(), t.TempDir()
	write := func(dir, name string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(first, PluginPrefix+"files", 0o755)    // overrides the bundled files
	write(first, PluginPrefix+"extra", 0o755)    // a third-party group
	write(second, PluginPrefix+"extra", 0o755)   // shadowed by the first dir's
	write(second, PluginPrefix+"notexec", 0o644) // refused
	write(second, PluginPrefix+"Bad_Name", 0o755)
	write(second, "unrelated-binary", 0o755)

	got, errs := Discover("/bin/self", []string{"files", "git"}, []string{first, second, filepath.Join(first, "missing")})
	want := []Source{
		{Name: "extra", Path: filepath.Join(first, PluginPrefix+"extra")},
		{Name: "files", Path: filepath.Join(first, PluginPrefix+"files")},
		{Name: "git", Path: "/bin/self", Args: []string{"plugin", "serve", "git"}, Bundled: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	joined := strings.Join(msgs, "\n")
	for _, w := range []string{"notexec\": not an executable file", "Bad_Name\": name must be"} {
		if !strings.Contains(joined, w) {
			t.Errorf("errors %q lack %q", joined, w)
		}
	}
}

func TestParseGroups(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		in      []string
		in_     map[string]bool
		out     map[string]bool
		wantErr string
	}{
		"in and out": {in: []string{"exhash", "-shell", " +git "}, in_: map[string]bool{"exhash": true, "git": true}, out: map[string]bool{"shell": true}},
		"empty":      {in: []string{""}, in_: map[string]bool{}, out: map[string]bool{}},
		"bad name":   {in: []string{"Ex Hash"}, wantErr: "not a group name"},
		"both":       {in: []string{"web", "-web"}, wantErr: "both opted in and out"},
	} {
		t.Run(name, func(t *testing.T) {
			in, out, err := catalog.ParseGroups(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.in_, in); diff != "" {
				t.Errorf("opt-in (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.out, out); diff != "" {
				t.Errorf("opt-out (-want +got):\n%s", diff)
			}
		})
	}
}
