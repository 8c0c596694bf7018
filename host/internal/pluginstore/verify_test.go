package pluginstore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestRemove(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	install(t, s, pluginAs(t, "echo", ""))
	install(t, s, pluginAs(t, "shadow", ""))
	if err := s.Remove("echo"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Path("echo")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("binary still there: %v", err)
	}
	lock, err := s.Lock()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"shadow"}, lock.Names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}

	// Unknown names: the error lists what is installed.
	err = s.Remove("echo")
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "installed: shadow") {
		t.Errorf("remove again: %v; want ErrNotInstalled listing shadow", err)
	}
	// A file dropped in by hand is not removed, and the error says so.
	dropped := s.Path("byhand")
	if err := os.WriteFile(dropped, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	err = s.Remove("byhand")
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "delete it yourself") {
		t.Errorf("remove hand-dropped: %v", err)
	}
	if _, err := os.Stat(dropped); err != nil {
		t.Errorf("hand-dropped file removed: %v", err)
	}
	if err := s.Remove("shadow"); err != nil {
		t.Fatal(err)
	}
	err = s.Remove("shadow")
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "none are") {
		t.Errorf("remove from an empty store: %v", err)
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		change func(t *testing.T, s *Store)
		want   []Check
	}{
		"ok": {
			change: func(*testing.T, *Store) {},
			want:   []Check{{Name: "echo", Status: StatusOK}},
		},
		"mismatch": {
			change: func(t *testing.T, s *Store) { appendByte(t, s.Path("echo")) },
			want:   []Check{{Name: "echo", Status: StatusMismatch}},
		},
		"missing": {
			change: func(t *testing.T, s *Store) {
				if err := os.Remove(s.Path("echo")); err != nil {
					t.Fatal(err)
				}
			},
			want: []Check{{Name: "echo", Status: StatusMissing}},
		},
		"unlocked": {
			change: func(t *testing.T, s *Store) {
				if err := os.Symlink(testPlugin, s.Path("dropped")); err != nil {
					t.Fatal(err)
				}
				// Not plugin files: ignored.
				for _, name := range []string{"README", ".install-1.tmp", FilePrefix + "Bad_Name"} {
					if err := os.WriteFile(filepath.Join(s.Dir(), name), nil, 0o755); err != nil {
						t.Fatal(err)
					}
				}
			},
			want: []Check{{Name: "dropped", Status: StatusUnlocked}, {Name: "echo", Status: StatusOK}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := openStore(t)
			e := install(t, s, pluginAs(t, "echo", ""))
			tc.change(t, s)
			got, err := s.Verify()
			if err != nil {
				t.Fatal(err)
			}
			// Fill in the paths and hashes each status implies.
			for i := range tc.want {
				w := &tc.want[i]
				w.Path = s.Path(w.Name)
				if w.Status != StatusUnlocked {
					w.Locked = e.SHA256
				}
				if w.Status != StatusMissing {
					w.Actual = sha(t, w.Path)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("checks (-want +got):\n%s", diff)
			}
			for _, c := range got {
				if want := c.Status == StatusMismatch || c.Status == StatusMissing; c.Problem() != want {
					t.Errorf("%s: Problem() = %v, want %v", c.Status, c.Problem(), want)
				}
			}
		})
	}
}

func TestVerifyMissingDir(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	got, err := s.Verify()
	if err != nil || len(got) != 0 {
		t.Errorf("Verify of a missing dir = %v, %v; want nothing", got, err)
	}
	if _, err := os.Stat(s.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Verify made the dir: %v", err)
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	e := install(t, s, pluginAs(t, "echo", ""))
	dropped := s.Path("dropped")
	if err := os.Symlink(testPlugin, dropped); err != nil {
		t.Fatal(err)
	}
	outside := pluginAs(t, "echo", "elsewhere")

	for name, path := range map[string]string{"locked and intact": s.Path("echo"), "dropped in by hand": dropped, "outside the dir": outside} {
		if err := s.Check(path); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A relative path to a modified binary: still the store's, refused.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, s.Path("echo"))
	if err != nil {
		t.Fatal(err)
	}
	appendByte(t, s.Path("echo"))
	err = s.Check(rel)
	if !errors.Is(err, ErrHashMismatch) {
		t.Fatalf("check of a modified binary: %v, want ErrHashMismatch", err)
	}
	var mm *HashMismatchError
	if !errors.As(err, &mm) || mm.Locked != e.SHA256 || mm.Actual != sha(t, s.Path("echo")) || mm.Name != "echo" {
		t.Errorf("mismatch details %+v", mm)
	}
	for _, want := range []string{`plugin "echo"`, "was modified after install", "sha256 " + mm.Actual, "locked " + e.SHA256, "reinstall it with ramabana-mcp plugin install"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	// A second store on the same dir (as the host would open) agrees.
	again, err := Open(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if err := again.Check(s.Path("echo")); !errors.Is(err, ErrHashMismatch) {
		t.Errorf("second store: %v, want ErrHashMismatch", err)
	}
}

func TestLockFileValidation(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		body string
		want string // error substring; "" for success
	}{
		"empty plugins":  {`{"version": 1, "plugins": {}}`, ""},
		"null plugins":   {`{"version": 1}`, ""},
		"future version": {`{"version": 2, "plugins": {}}`, "version 2"},
		"not json":       {`{`, "unexpected end"},
		"file elsewhere": {`{"version": 1, "plugins": {"echo": {"file": "../../bin/sh"}}}`, `file "../../bin/sh"`},
		"bad name":       {`{"version": 1, "plugins": {"../x": {"file": "ramabana-plugin-../x"}}}`, `entry "../x"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, LockFileName), []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			lock, err := s.Lock()
			if tc.want == "" {
				if err != nil || lock.Plugins == nil {
					t.Fatalf("Lock = %+v, %v", lock, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Lock error %v, want one containing %q", err, tc.want)
			}
			// A lock file that cannot be read vouches for nothing: Check
			// refuses the dir's plugins rather than allow them unchecked.
			if err := s.Check(filepath.Join(dir, FilePrefix+"echo")); err == nil {
				t.Error("Check passed with an unreadable lock file")
			}
		})
	}
}

func TestOpenAndNames(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(file); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Open(file) = %v", err)
	}
	if got, want := DefaultDir("/cfg"), "/cfg/plugins"; got != want {
		t.Errorf("DefaultDir = %q, want %q", got, want)
	}
	names := map[string]string{
		"ramabana-plugin-echo":        "echo",
		"/x/y/ramabana-plugin-a-1":    "a-1",
		"ramabana-plugin-":            "",
		"ramabana-plugin-Echo":        "",
		".install-123.tmp":            "",
		LockFileName:                  "",
		"." + LockFileName + ".tmp-1": "",
	}
	got := map[string]string{}
	for file := range names {
		n, ok := PluginName(file)
		if ok != (n != "") {
			t.Errorf("PluginName(%q) = %q, %v", file, n, ok)
		}
		got[file] = n
	}
	if diff := cmp.Diff(names, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("PluginName (-want +got):\n%s", diff)
	}
}
