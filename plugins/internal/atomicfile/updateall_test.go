package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// multi is two served directories, 0 and 1, holding three files: a.txt
// ("a\n", mode 0751) and b.txt ("b\n", 0644) in 0, c.txt ("c\n", 0640)
// in 1.
type multi struct {
	dirs  [2]string
	roots [2]*os.Root
}

// The files of a multi, in the order of its changes.
var multiFiles = []struct {
	dir        int
	name, data string
	mode       fs.FileMode
}{
	{0, "a.txt", "a\n", 0o751},
	{0, "b.txt", "b\n", 0o644},
	{1, "c.txt", "c\n", 0o640},
}

func newMulti(t *testing.T) *multi {
	t.Helper()
	m := &multi{}
	for i := range m.dirs {
		m.dirs[i], m.roots[i] = openDir(t)
	}
	for _, f := range multiFiles {
		mustWrite(t, m.path(f.dir, f.name), f.data, f.mode)
	}
	return m
}

func (m *multi) path(dir int, name string) string { return filepath.Join(m.dirs[dir], name) }

// changes are the changes of a multi's three files, edit(i) the Edit of
// the ith.
func (m *multi) changes(edit func(i int) Edit) []Change {
	var cs []Change
	for i, f := range multiFiles {
		cs = append(cs, Change{Dir: m.roots[f.dir], Name: f.name, Edit: edit(i)})
	}
	return cs
}

// state is what both directories hold: each entry as dir/name, with a
// file's content and mode, so that a leftover temporary file shows.
func (m *multi) state(t *testing.T) map[string]string {
	t.Helper()
	st := make(map[string]string)
	for i, dir := range m.dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			fi, err := os.Lstat(p)
			if err != nil {
				t.Fatal(err)
			}
			v := fi.Mode().String()
			if fi.Mode().IsRegular() {
				data, _ := os.ReadFile(p)
				v += " " + string(data)
			}
			st[fmt.Sprintf("%d/%s", i, e.Name())] = v
		}
	}
	return st
}

// appendEdit appends s to the content.
func appendEdit(s string) Edit {
	return func(cur []byte, _ fs.FileInfo) ([]byte, error) { return append(cur, s...), nil }
}

func TestUpdateAll(t *testing.T) {
	t.Parallel()
	m := newMulti(t)
	before := m.state(t)
	checked := 0
	cs := m.changes(func(i int) Edit { return appendEdit(fmt.Sprintf("new %d\n", i)) })
	cs[1].Check = func(fi fs.FileInfo) error {
		if checked++; fi.Size() != 2 {
			t.Errorf("Check got size %d, want 2", fi.Size())
		}
		return nil
	}
	if err := UpdateAll(t.Context(), cs); err != nil {
		t.Fatal(err)
	}
	if checked < 2 {
		t.Errorf("Check ran %d times, want it run before and under the lock", checked)
	}
	want := make(map[string]string)
	for k, v := range before {
		want[k] = v
	}
	want["0/a.txt"] = "-rwxr-x--x a\nnew 0\n"
	want["0/b.txt"] = "-rw-r--r-- b\nnew 1\n"
	want["1/c.txt"] = "-rw-r----- c\nnew 2\n"
	if diff := cmp.Diff(want, m.state(t)); diff != "" {
		t.Errorf("directories (-want +got):\n%s", diff)
	}
}

func TestUpdateAllSetuidKept(t *testing.T) {
	t.Parallel()
	m := newMulti(t)
	mustChmod(t, m.path(0, "b.txt"), 0o755|fs.ModeSetuid)
	if err := UpdateAll(t.Context(), m.changes(func(int) Edit { return replaceWith("new") })); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(m.path(0, "b.txt")); KeptMode(fi.Mode()) != 0o755|fs.ModeSetuid {
		t.Errorf("b.txt mode %v, want -urwxr-xr-x", fi.Mode())
	}
}

func TestUpdateAllEmpty(t *testing.T) {
	t.Parallel()
	if err := UpdateAll(t.Context(), nil); err != nil {
		t.Error(err)
	}
	if err := UpdateAll(t.Context(), []Change{}); err != nil {
		t.Error(err)
	}
}

// TestUpdateAllWritesNothing: every refusal and failure before the
// renames leaves the three files as they were (but for the change of a
// writer that does not lock) and no temporary file.
func TestUpdateAllWritesNothing(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	tests := map[string]struct {
		// setup prepares the files; changes returns the changes, by
		// default m.changes of edits appending "new".
		setup   func(t *testing.T, m *multi)
		changes func(t *testing.T, m *multi, cancel func()) []Change
		wantErr error  // errAny: any
		wantMsg string // in the error, if set
		// outside is what a writer that does not lock leaves, by entry.
		outside map[string]string
	}{
		"edit error in the last": {
			changes: func(_ *testing.T, m *multi, _ func()) []Change {
				cs := m.changes(func(int) Edit { return appendEdit("new") })
				cs[2].Edit = func([]byte, fs.FileInfo) ([]byte, error) { return nil, boom }
				return cs
			},
			wantErr: boom,
		},
		"check error": {
			changes: func(_ *testing.T, m *multi, _ func()) []Change {
				cs := m.changes(func(int) Edit { return appendEdit("new") })
				cs[1].Check = func(fs.FileInfo) error { return boom }
				return cs
			},
			wantErr: boom,
		},
		"missing": {
			setup:   func(t *testing.T, m *multi) { mustRemove(t, m.path(1, "c.txt")) },
			wantErr: fs.ErrNotExist,
		},
		"directory": {
			setup: func(t *testing.T, m *multi) {
				mustRemove(t, m.path(1, "c.txt"))
				mustMkdir(t, m.path(1, "c.txt"))
			},
			wantErr: errAny,
		},
		"symlink": {
			setup: func(t *testing.T, m *multi) {
				mustRemove(t, m.path(0, "b.txt"))
				if err := os.Symlink("a.txt", m.path(0, "b.txt")); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: ErrSymlink,
		},
		"same name twice": {
			changes: func(_ *testing.T, m *multi, _ func()) []Change {
				cs := m.changes(func(int) Edit { return appendEdit("new") })
				return append(cs, cs[1])
			},
			wantErr: errAny,
			wantMsg: "two changes name",
		},
		"same file through another root": {
			changes: func(t *testing.T, m *multi, _ func()) []Change {
				again, err := os.OpenRoot(m.dirs[1])
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = again.Close() })
				cs := m.changes(func(int) Edit { return appendEdit("new") })
				return append(cs, Change{Dir: again, Name: "c.txt", Edit: appendEdit("new")})
			},
			wantErr: errAny,
			wantMsg: "two changes name",
		},
		"hard link to another": {
			setup: func(t *testing.T, m *multi) {
				mustRemove(t, m.path(0, "b.txt"))
				if err := os.Link(m.path(1, "c.txt"), m.path(0, "b.txt")); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: errAny,
			wantMsg: "two changes name",
		},
		"changed in place during the edit": {
			changes: func(t *testing.T, m *multi, _ func()) []Change {
				cs := m.changes(func(int) Edit { return appendEdit("new") })
				cs[2].Edit = func(cur []byte, _ fs.FileInfo) ([]byte, error) {
					// The same size: only the time tells.
					p := m.path(0, "a.txt")
					mustWrite(t, p, "A\n", 0o751)
					if err := os.Chtimes(p, time.Time{}, time.Unix(1e9, 0)); err != nil {
						t.Fatal(err)
					}
					return append(cur, "new"...), nil
				}
				return cs
			},
			wantErr: ErrChanged,
			outside: map[string]string{"0/a.txt": "-rwxr-x--x A\n"},
		},
		"replaced during the edit": {
			changes: func(t *testing.T, m *multi, _ func()) []Change {
				cs := m.changes(func(int) Edit { return appendEdit("new") })
				cs[2].Edit = func(cur []byte, _ fs.FileInfo) ([]byte, error) {
					other := filepath.Join(m.dirs[0], "other")
					mustWrite(t, other, "B\n", 0o600)
					if err := os.Rename(other, m.path(0, "b.txt")); err != nil {
						t.Fatal(err)
					}
					return append(cur, "new"...), nil
				}
				return cs
			},
			wantErr: ErrChanged,
			outside: map[string]string{"0/b.txt": "-rw------- B\n"},
		},
		"cancelled before": {
			changes: func(t *testing.T, m *multi, cancel func()) []Change {
				cancel()
				return m.changes(func(int) Edit {
					return func([]byte, fs.FileInfo) ([]byte, error) {
						t.Error("edit ran with ctx ended")
						return nil, nil
					}
				})
			},
			wantErr: context.Canceled,
		},
		"cancelled during the edit": {
			changes: func(_ *testing.T, m *multi, cancel func()) []Change {
				cs := m.changes(func(int) Edit { return appendEdit("new") })
				cs[1].Edit = func(cur []byte, _ fs.FileInfo) ([]byte, error) {
					cancel()
					return append(cur, "new"...), nil
				}
				return cs
			},
			wantErr: context.Canceled,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := newMulti(t)
			if tc.setup != nil {
				tc.setup(t, m)
			}
			want := m.state(t)
			for k, v := range tc.outside {
				want[k] = v
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			cs := m.changes(func(int) Edit { return appendEdit("new") })
			if tc.changes != nil {
				cs = tc.changes(t, m, cancel)
			}
			err := UpdateAll(ctx, cs)
			if err == nil || (tc.wantErr != errAny && !errors.Is(err, tc.wantErr)) {
				t.Fatalf("UpdateAll = %v, want %v", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("UpdateAll = %v, want it to say %q", err, tc.wantMsg)
			}
			if diff := cmp.Diff(want, m.state(t)); diff != "" {
				t.Errorf("directories (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUpdateAllRenameFails makes the rename of one file fail, after others
// were renamed into place: those are restored, with their mode, unless a
// writer that does not lock changed them since, and the error says so.
func TestUpdateAllRenameFails(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	tests := map[string]struct {
		failAt  int
		outside func(t *testing.T, m *multi) // run before the failing rename
		// outsideState is what outside leaves, by entry.
		outsideState map[string]string
		wantPartial  bool
		wantMsg      []string
	}{
		"the first":  {failAt: 0, wantMsg: []string{"update a.txt: boom"}},
		"the second": {failAt: 1, wantMsg: []string{"update b.txt: boom", "restored", "a.txt"}},
		"the last":   {failAt: 2, wantMsg: []string{"update c.txt: boom", "restored", "a.txt, b.txt"}},
		"a restored file changed meanwhile": {
			failAt: 2,
			outside: func(t *testing.T, m *multi) {
				p := m.path(0, "b.txt")
				mustWrite(t, p, "theirs", 0o644)
			},
			outsideState: map[string]string{"0/b.txt": "-rw-r--r-- theirs"},
			wantPartial:  true,
			wantMsg:      []string{"update c.txt: boom", "b.txt (changed by another program", "restored: a.txt"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := newMulti(t)
			want := m.state(t)
			for k, v := range tc.outsideState {
				want[k] = v
			}
			ctx := context.WithValue(t.Context(), renameHookKey{}, func(i int) error {
				if i != tc.failAt {
					return nil
				}
				if tc.outside != nil {
					tc.outside(t, m)
				}
				return boom
			})
			err := UpdateAll(ctx, m.changes(func(i int) Edit { return appendEdit(fmt.Sprintf("new %d\n", i)) }))
			if !errors.Is(err, boom) {
				t.Fatalf("UpdateAll = %v, want boom", err)
			}
			if got := errors.Is(err, ErrPartial); got != tc.wantPartial {
				t.Errorf("UpdateAll = %v: ErrPartial %v, want %v", err, got, tc.wantPartial)
			}
			for _, s := range tc.wantMsg {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("UpdateAll = %v, want it to say %q", err, s)
				}
			}
			if diff := cmp.Diff(want, m.state(t)); diff != "" {
				t.Errorf("directories (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFailurePartial(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("update b.txt: boom; %w: a.txt (gone)", ErrPartial)
	msg := Failure(err, "a.txt and b.txt", "read them again").Error()
	if !strings.Contains(msg, "a.txt (gone)") || strings.Contains(msg, "unchanged") {
		t.Errorf("Failure = %q, want the files left changed, and no claim that nothing changed", msg)
	}
}

func mustRemove(t *testing.T, p string) {
	t.Helper()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
}
