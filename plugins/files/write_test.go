package files_test

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestCreateFile(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		existing  string // content of an existing a/new.txt, "" for none
		mode      fs.FileMode
		args      map[string]any
		want      string
		wantErr   string
		wantMode  fs.FileMode
		wantBytes string // file content after; defaults to args content
	}{
		"new file with parents": {
			args:     map[string]any{"path": "a/b/new.txt", "content": "one\ntwo\n"},
			want:     "created a/b/new.txt (8 bytes, 2 lines)",
			wantMode: 0o644,
		},
		"empty file": {
			args:     map[string]any{"path": "a/b/new.txt", "content": ""},
			want:     "created a/b/new.txt (0 bytes, 0 lines)",
			wantMode: 0o644,
		},
		"existing refused": {
			existing: "old\n", mode: 0o600,
			args:    map[string]any{"path": "a/b/new.txt", "content": "x"},
			wantErr: "a/b/new.txt already exists (4 bytes); set overwrite=true",
		},
		"overwrite keeps mode": {
			existing: "old\n", mode: 0o755,
			args:     map[string]any{"path": "a/b/new.txt", "content": "#!/bin/sh\r\necho hi", "overwrite": true},
			want:     "overwrote a/b/new.txt (18 bytes, 2 lines)",
			wantMode: 0o755,
		},
		"directory": {
			args:    map[string]any{"path": "a", "content": "x", "overwrite": true},
			wantErr: "a is a directory",
		},
		"parent is a file": {
			existing: "old\n", mode: 0o644,
			args:    map[string]any{"path": "a/b/new.txt/child", "content": "x"},
			wantErr: "cannot create",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, map[string]string{"a/keep": ""}, false)
			path := e.path("a/b/new.txt")
			var before snapshot
			if tc.existing != "" {
				writeFile(t, path, tc.existing, tc.mode)
				before = snap(t, path)
			}
			res := sdktest.Call(t, e.g, "create_file", tc.args)
			if tc.wantErr != "" {
				if !res.IsError || !strings.Contains(res.Text(), tc.wantErr) {
					t.Fatalf("got %q (error %v), want an error containing %q", res.Text(), res.IsError, tc.wantErr)
				}
				if tc.existing != "" {
					if diff := cmp.Diff(before, snap(t, path)); diff != "" {
						t.Errorf("file changed (-before +after):\n%s", diff)
					}
				}
				return
			}
			if res.IsError || res.Text() != tc.want {
				t.Fatalf("got %q (error %v), want %q", res.Text(), res.IsError, tc.want)
			}
			content := tc.args["content"].(string)
			got := snap(t, e.path(tc.args["path"].(string)))
			if diff := cmp.Diff(snapshot{Data: []byte(content), Mode: tc.wantMode}, got); diff != "" {
				t.Errorf("file (-want +got):\n%s", diff)
			}
			wantChange := sdk.FileChange{Path: e.path(tc.args["path"].(string)), AfterSHA256: sum(content), After: []byte(content)}
			if tc.existing != "" {
				wantChange.BeforeSHA256, wantChange.Before = sum(tc.existing), []byte(tc.existing)
			}
			if diff := cmp.Diff([]sdk.FileChange{wantChange}, res.Changes, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
			noTempFiles(t, e.dir)
		})
	}
}

func TestReplaceText(t *testing.T) {
	t.Parallel()
	const py = "def f(x):\n    return x + 1\n\ndef g(x):\n    return x + 1\n"
	const crlf = "line one\r\nline two\r\nline three\r\n"
	tests := map[string]struct {
		content string
		args    map[string]any
		want    string // file after
		wantMsg string // result text, or substring of the error
		wantErr bool
	}{
		"unique": {
			content: py,
			args:    map[string]any{"old": "def g(x):\n    return x + 1", "new": "def g(x):\n    return x + 2"},
			want:    "def f(x):\n    return x + 1\n\ndef g(x):\n    return x + 2\n",
			wantMsg: "replaced 1 occurrence in f.py; lines 4-5 now read:\n" + lines(4, "def g(x):", "    return x + 2"),
		},
		"delete text": {
			content: py,
			args:    map[string]any{"old": "\ndef g(x):\n    return x + 1\n", "new": ""},
			want:    "def f(x):\n    return x + 1\n",
			wantMsg: "replaced 1 occurrence in f.py; line 3 now reads:\n",
		},
		"not found": {
			content: py,
			args:    map[string]any{"old": "return x+1", "new": "y"},
			wantMsg: "old text was not found in f.py; nothing was changed. It must match exactly: check whitespace",
			wantErr: true,
		},
		"old with view_file's prefixes": {
			content: py,
			args:    map[string]any{"old": "4|" + h("def g(x):") + "|def g(x):", "new": "def h(x):"},
			wantMsg: "old text was not found in f.py; nothing was changed: line 1 of old starts with \"4|" + h("def g(x):") + "|\", view_file's \"lineno|hash|\" prefix; the prefixes are view_file's display, not the file's content: send the lines without them",
			wantErr: true,
		},
		"new with view_file's prefixes": {
			content: py,
			args:    map[string]any{"old": "def g(x):", "new": "4|0000|def h(x):"},
			wantMsg: "replace_text changed nothing: line 1 of new starts with \"4|0000|\"",
			wantErr: true,
		},
		"prefixes that are the file's content": {
			content: "12|abcd|golden\n",
			args:    map[string]any{"old": "12|abcd|golden", "new": "12|abcd|gold"},
			want:    "12|abcd|gold\n",
			wantMsg: "replaced 1 occurrence in f.py; line 1 now reads:\n" + lines(1, "12|abcd|gold"),
		},
		"not unique": {
			content: py,
			args:    map[string]any{"old": "    return x + 1", "new": "    return x"},
			wantMsg: "old text occurs 2 times in f.py (first at line 2); nothing was changed. Include more surrounding lines to make it unique, or set replace_all=true",
			wantErr: true,
		},
		"replace all": {
			content: py,
			args:    map[string]any{"old": "x + 1", "new": "x + 10", "replace_all": true},
			want:    "def f(x):\n    return x + 10\n\ndef g(x):\n    return x + 10\n",
			wantMsg: "replaced 2 occurrences in f.py, now at lines 2, 5",
		},
		"empty old": {
			content: py,
			args:    map[string]any{"old": "", "new": "x"},
			wantMsg: "invalid arguments for replace_text: \"old\" must not be empty",
			wantErr: true,
		},
		"same text": {
			content: py,
			args:    map[string]any{"old": "def f", "new": "def f"},
			wantMsg: "old and new are the same",
			wantErr: true,
		},
		"crlf file, lf arguments": {
			content: crlf,
			args:    map[string]any{"old": "line one\nline two\n", "new": "first\nsecond\nthird\n"},
			want:    "first\r\nsecond\r\nthird\r\nline three\r\n",
			wantMsg: "replaced 1 occurrence in f.py; lines 1-3 now read:\n" + lines(1, "first", "second", "third"),
		},
		"crlf file, crlf arguments": {
			content: crlf,
			args:    map[string]any{"old": "two\r\nline", "new": "2\r\nline"},
			want:    "line one\r\nline 2\r\nline three\r\n",
			wantMsg: "replaced 1 occurrence in f.py; lines 2-3 now read:\n" + lines(2, "line 2", "line three"),
		},
		"lf file, crlf arguments": {
			content: py,
			args:    map[string]any{"old": "def f(x):\r\n", "new": "def f(y):\r\n"},
			want:    strings.Replace(py, "f(x)", "f(y)", 1),
			wantMsg: "replaced 1 occurrence in f.py; line 1 now reads:\n" + lines(1, "def f(y):"),
		},
		"mixed endings fall back to exact": {
			content: "a\r\nb\nc\n",
			args:    map[string]any{"old": "b\nc", "new": "B\nC"},
			want:    "a\r\nB\nC\n",
			wantMsg: "replaced 1 occurrence in f.py; lines 2-3 now read:\n" + lines(2, "B", "C"),
		},
		"binary": {
			content: "a\x00b",
			args:    map[string]any{"old": "a", "new": "b"},
			wantMsg: "f.py is a binary file (3 bytes); replace_text works on text files only",
			wantErr: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil, false)
			path := e.path("f.py")
			writeFile(t, path, tc.content, 0o755)
			before := snap(t, path)
			tc.args["path"] = "f.py"
			res := sdktest.Call(t, e.g, "replace_text", tc.args)
			if tc.wantErr {
				if !res.IsError || !strings.Contains(res.Text(), tc.wantMsg) {
					t.Errorf("got %q (error %v), want an error containing %q", res.Text(), res.IsError, tc.wantMsg)
				}
				if diff := cmp.Diff(before, snap(t, path)); diff != "" {
					t.Errorf("file changed (-before +after):\n%s", diff)
				}
				if len(res.Changes) != 0 {
					t.Errorf("changes reported for a failed call: %v", res.Changes)
				}
				return
			}
			if res.IsError || !strings.HasPrefix(res.Text(), tc.wantMsg) {
				t.Errorf("got %q (error %v), want %q", res.Text(), res.IsError, tc.wantMsg)
			}
			if diff := cmp.Diff(snapshot{Data: []byte(tc.want), Mode: 0o755}, snap(t, path)); diff != "" {
				t.Errorf("file (-want +got):\n%s", diff)
			}
			want := []sdk.FileChange{{Path: path, BeforeSHA256: sum(tc.content), AfterSHA256: sum(tc.want), Before: []byte(tc.content), After: []byte(tc.want)}}
			if diff := cmp.Diff(want, res.Changes, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
			noTempFiles(t, e.dir)
		})
	}
}

func TestWriteToMissingFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil, false)
	for _, tool := range []string{"replace_text", "edit_file"} {
		args := map[string]any{"path": "nope.txt", "old": "a", "new": "b"}
		if tool == "edit_file" {
			args = map[string]any{"path": "nope.txt", "edits": []map[string]any{{"op": "insert_after", "line": 0, "text": "x"}}}
		}
		got, isErr := e.call(t, tool, args)
		if !isErr || got != "nope.txt does not exist" {
			t.Errorf("%s: got %q (error %v)", tool, got, isErr)
		}
	}
	if _, err := os.Stat(e.path("nope.txt")); !os.IsNotExist(err) {
		t.Errorf("file was created: %v", err)
	}
}

// TestWriteResultsBounded checks that the lines the write tools echo stay
// under 40 KB, cut where a line is longer than that, and keep the whole
// line's hash, so that they still anchor edits.
func TestWriteResultsBounded(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 200_000)
	wide := strings.Repeat(strings.Repeat("w", 3000)+"\n", 30)
	tests := map[string]struct {
		content string
		tool    string
		args    map[string]any
		want    []string // substrings of the result
	}{
		"replace_text in a minified line": {
			content: "a\n" + long + "x;\nb\n",
			tool:    "replace_text",
			args:    map[string]any{"old": "xx;", "new": "xy;"},
			want: []string{
				"line 2 now reads:\n2|" + h(long[:len(long)-1]+"xy;") + "|xxx",
				"\n(line 2 is 200002 bytes long, cut here; view_file with start=2 shows it in parts)",
			},
		},
		"edit_file over many wide lines": {
			content: wide,
			tool:    "edit_file",
			args: map[string]any{"edits": []map[string]any{
				ed("replace", 1, h(strings.Repeat("w", 3000)), "end_line", 30, "end_hash", h(strings.Repeat("w", 3000)), "text", wide),
			}},
			want: []string{"\n(20 more lines; use view_file with start=11)"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, map[string]string{"f.txt": tc.content}, false)
			tc.args["path"] = "f.txt"
			res := sdktest.Call(t, e.g, tc.tool, tc.args)
			got := res.Text()
			if res.IsError || len(got) > 40_000 {
				t.Fatalf("%s: %d bytes, error %v: %.300s", tc.tool, len(got), res.IsError, got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("result %.300q ... %q\nshould contain %q", got, got[max(0, len(got)-200):], w)
				}
			}
		})
	}
}
