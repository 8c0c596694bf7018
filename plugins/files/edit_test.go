package files_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ramabana/ramabana-mcp/plugins/files"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

const six = "one\ntwo\nthree\nfour\nfive\nsix\n"

var h = files.LineHash

// ed builds one edit argument.
func ed(op string, line int, hash string, more ...any) map[string]any {
	m := map[string]any{"op": op, "line": line}
	if hash != "" {
		m["hash"] = hash
	}
	for i := 0; i+1 < len(more); i += 2 {
		m[more[i].(string)] = more[i+1]
	}
	return m
}

func TestEditFile(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		content string
		edits   []map[string]any
		want    string // file after
		wantMsg string // result text if set
	}{
		"replace one line": {
			content: six,
			edits:   []map[string]any{ed("replace", 2, h("two"), "text", "TWO")},
			want:    "one\nTWO\nthree\nfour\nfive\nsix\n",
			wantMsg: "edited f.txt: 1 edit applied, 6 lines now (was 6). Edited regions with one line of context (lineno|hash|content):\n" +
				lines(1, "one", "TWO", "three"),
		},
		"replace a range with fewer lines": {
			content: six,
			edits:   []map[string]any{ed("replace", 2, h("two"), "end_line", 4, "end_hash", h("four"), "text", "X\nY\n")},
			want:    "one\nX\nY\nfive\nsix\n",
			wantMsg: "edited f.txt: 1 edit applied, 5 lines now (was 6). Edited regions with one line of context (lineno|hash|content):\n" +
				lines(1, "one", "X", "Y", "five"),
		},
		"insert at the top": {
			content: six,
			edits:   []map[string]any{ed("insert_after", 0, "", "text", "zero")},
			want:    "zero\n" + six,
		},
		"insert after the last line": {
			content: six,
			edits:   []map[string]any{ed("insert_after", 6, h("six"), "text", "seven\neight")},
			want:    six + "seven\neight\n",
		},
		"insert one empty line": {
			content: six,
			edits:   []map[string]any{ed("insert_after", 1, h("one"), "text", "\n")},
			want:    "one\n\ntwo\nthree\nfour\nfive\nsix\n",
		},
		"delete a range": {
			content: six,
			edits:   []map[string]any{ed("delete", 3, h("three"), "end_line", 4, "end_hash", h("four"))},
			want:    "one\ntwo\nfive\nsix\n",
			wantMsg: "edited f.txt: 1 edit applied, 4 lines now (was 6). Edited regions with one line of context (lineno|hash|content):\n" +
				lines(2, "two", "five"),
		},
		"replace with nothing deletes": {
			content: six,
			edits:   []map[string]any{ed("replace", 6, h("six"), "text", "")},
			want:    "one\ntwo\nthree\nfour\nfive\n",
		},
		"batch uses the original numbering": {
			content: six,
			edits: []map[string]any{
				ed("delete", 6, h("six")),
				ed("replace", 1, h("one"), "text", "ONE\nONE.5"),
				ed("insert_after", 3, h("three"), "text", "three.5"),
				ed("insert_after", 4, h("four"), "text", "four.5"),
			},
			want: "ONE\nONE.5\ntwo\nthree\nthree.5\nfour\nfour.5\nfive\n",
			wantMsg: "edited f.txt: 4 edits applied, 8 lines now (was 6). Edited regions with one line of context (lineno|hash|content):\n" +
				lines(1, "ONE", "ONE.5", "two") + "\n" + lines(4, "three", "three.5", "four", "four.5", "five"),
		},
		"distant regions": {
			content: six,
			edits: []map[string]any{
				ed("replace", 1, h("one"), "text", "1"),
				ed("replace", 6, h("six"), "text", "6"),
			},
			want: "1\ntwo\nthree\nfour\nfive\n6\n",
			wantMsg: "edited f.txt: 2 edits applied, 6 lines now (was 6). Edited regions with one line of context (lineno|hash|content):\n" +
				lines(1, "1", "two") + "\n...\n" + lines(5, "five", "6"),
		},
		"insert before and after a replaced range": {
			content: six,
			edits: []map[string]any{
				ed("replace", 2, h("two"), "end_line", 3, "end_hash", h("three"), "text", "mid"),
				ed("insert_after", 1, h("one"), "text", "before"),
				ed("insert_after", 3, h("three"), "text", "after"),
			},
			want: "one\nbefore\nmid\nafter\nfour\nfive\nsix\n",
		},
		"uppercase hash": {
			content: six,
			edits:   []map[string]any{ed("replace", 1, strings.ToUpper(h("one")), "text", "1")},
			want:    "1\ntwo\nthree\nfour\nfive\nsix\n",
		},
		"crlf kept": {
			content: "a\r\nb\r\nc\r\n",
			edits: []map[string]any{
				ed("replace", 2, h("b"), "text", "B1\nB2"),
				ed("insert_after", 3, h("c"), "text", "d\r\ne\r\n"),
			},
			want: "a\r\nB1\r\nB2\r\nc\r\nd\r\ne\r\n",
		},
		"missing final newline kept on replace": {
			content: "a\nb",
			edits:   []map[string]any{ed("replace", 2, h("b"), "text", "B")},
			want:    "a\nB",
		},
		"missing final newline kept on append": {
			content: "a\r\nb",
			edits:   []map[string]any{ed("insert_after", 2, h("b"), "text", "c")},
			want:    "a\r\nb\r\nc",
		},
		"missing final newline kept on delete": {
			content: "a\nb",
			edits:   []map[string]any{ed("delete", 2, h("b"))},
			want:    "a",
		},
		"empty file": {
			content: "",
			edits:   []map[string]any{ed("insert_after", 0, "", "text", "first")},
			want:    "first\n",
		},
		"delete everything": {
			content: "a\nb\n",
			edits:   []map[string]any{ed("delete", 1, h("a"), "end_line", 2, "end_hash", h("b"))},
			want:    "",
			wantMsg: "edited f.txt: 1 edit applied, 0 lines now (was 2). Edited regions with one line of context (lineno|hash|content):\n(the file is now empty)",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil, false)
			path := e.path("f.txt")
			writeFile(t, path, tc.content, 0o755)
			res := sdktest.Call(t, e.g, "edit_file", map[string]any{"path": "f.txt", "edits": tc.edits})
			if res.IsError {
				t.Fatalf("edit_file failed: %s", res.Text())
			}
			if tc.wantMsg != "" {
				if diff := cmp.Diff(tc.wantMsg, res.Text()); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
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

func TestEditFileRejects(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		content string
		edits   []map[string]any
		want    []string // substrings of the error
	}{
		"stale anchor in a batch": {
			content: six,
			edits: []map[string]any{
				ed("replace", 1, h("one"), "text", "ONE"),
				ed("replace", 4, h("FOUR"), "text", "4"),
				ed("delete", 6, h("six")),
			},
			want: []string{
				"edit_file changed nothing in f.txt: 1 of its 3 anchors does not match the file as it is now. Current lines (lineno|hash|content):\n" +
					"edit 2: line 4 now has hash " + h("four") + ", not " + h("FOUR") + ":\n" +
					lines(2, "two", "three", "four", "five", "six") +
					"\nRetry the whole batch",
			},
		},
		"moved line": {
			content: "x\n" + six,
			edits:   []map[string]any{ed("replace", 2, h("two"), "text", "2")},
			want:    []string{"edit 1: line 2 now has hash " + h("one") + ", not " + h("two") + " (a line with hash " + h("two") + " is now at line 3):\n" + lines(1, "x", "one", "two", "three")},
		},
		"stale end anchor": {
			content: six,
			edits:   []map[string]any{ed("delete", 1, h("one"), "end_line", 3, "end_hash", h("two"))},
			want:    []string{"f.txt: 1 of its 2 anchors does not match", "edit 1: line 3 now has hash " + h("three") + ", not " + h("two")},
		},
		"one stale anchor of one": {
			content: six,
			edits:   []map[string]any{ed("replace", 2, h("TWO"), "text", "2")},
			want:    []string{"edit_file changed nothing in f.txt: its anchor does not match the file as it is now."},
		},
		"all anchors stale": {
			content: six,
			edits:   []map[string]any{ed("replace", 2, h("TWO"), "text", "2"), ed("delete", 4, h("FOUR"))},
			want:    []string{"edit_file changed nothing in f.txt: none of its 2 anchors match the file as it is now."},
		},
		"two of three anchors stale": {
			content: six,
			edits:   []map[string]any{ed("replace", 2, h("TWO"), "text", "2"), ed("delete", 4, h("FOUR")), ed("delete", 6, h("six"))},
			want:    []string{"edit_file changed nothing in f.txt: 2 of its 3 anchors do not match the file as it is now."},
		},
		"past the end": {
			content: six,
			edits:   []map[string]any{ed("insert_after", 9, h("nine"), "text", "x")},
			want:    []string{"edit 1: line 9 is past the end (f.txt has 6 lines); its last lines:\n" + lines(4, "four", "five", "six")},
		},
		"overlapping ranges": {
			content: six,
			edits: []map[string]any{
				ed("replace", 2, h("two"), "end_line", 4, "end_hash", h("four"), "text", "x"),
				ed("delete", 4, h("four")),
			},
			want: []string{"edits 1 and 2 overlap (lines 2-4 and line 4); nothing was changed"},
		},
		"insert inside a range": {
			content: six,
			edits: []map[string]any{
				ed("insert_after", 2, h("two"), "text", "x"),
				ed("delete", 2, h("two"), "end_line", 3, "end_hash", h("three")),
			},
			want: []string{"edits 1 and 2 overlap (lines 2-3 and an insert after line 2)"},
		},
		"two inserts at one place": {
			content: six,
			edits: []map[string]any{
				ed("insert_after", 2, h("two"), "text", "x"),
				ed("insert_after", 2, h("two"), "text", "y"),
			},
			want: []string{"edits 1 and 2 overlap (an insert after line 2 and an insert after line 2)"},
		},
		"malformed edits": {
			content: six,
			edits: []map[string]any{
				ed("replace", 2, "", "text", "x"),
				ed("delete", 3, h("three"), "end_line", 2, "end_hash", h("two")),
				ed("delete", 3, h("three"), "text", "x"),
				ed("insert_after", 1, h("one")),
				ed("replace", 0, h("one"), "text", "x"),
				ed("insert_after", 1, h("one"), "end_line", 2, "text", "x"),
				ed("replace", 1, h("one"), "end_line", 2, "text", "x"),
			},
			want: []string{
				"edit 1: hash is missing: give the 4-hex-digit hash view_file shows for line 2",
				"edit 2: end_line 2 is before line 3",
				"edit 3: delete takes no text",
				"edit 4: insert_after needs text",
				"edit 5: replace needs line 1 or more, got 0",
				"edit 6: insert_after takes no end_line or end_hash",
				"edit 7: end_hash is missing",
			},
		},
		"unknown op": {
			content: six,
			edits:   []map[string]any{ed("replace", 1, h("one"), "text", "x"), ed("move", 2, h("two"))},
			want:    []string{"invalid arguments for edit_file", `"edits[1].op" must be one of "replace", "insert_after", "delete" (got "move")`},
		},
		"no edits": {
			content: six,
			edits:   []map[string]any{},
			want:    []string{"invalid arguments for edit_file", `"edits" must not be empty`},
		},
		"view_file's prefixes in text": {
			content: six,
			edits: []map[string]any{
				ed("replace", 2, h("two"), "text", "2|"+h("two")+"|TWO\n3|"+h("three")+"|THREE"),
				ed("insert_after", 5, h("five"), "text", "   five and a half\n6|abcd|x"),
			},
			want: []string{
				"edit 1: line 1 of text starts with \"2|" + h("two") + "|\", view_file's \"lineno|hash|\" prefix; the prefixes are view_file's display, not the file's content: send the lines without them",
				"edit 2: line 2 of text starts with \"6|abcd|\"",
			},
		},
		"binary": {
			content: "\x00\x01",
			edits:   []map[string]any{ed("insert_after", 0, "", "text", "x")},
			want:    []string{"f.txt is a binary file (2 bytes); edit_file works on text files only"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil, false)
			path := e.path("f.txt")
			writeFile(t, path, tc.content, 0o755)
			before := snap(t, path)
			res := sdktest.Call(t, e.g, "edit_file", map[string]any{"path": "f.txt", "edits": tc.edits})
			if !res.IsError {
				t.Fatalf("edit_file succeeded: %s", res.Text())
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Text(), w) {
					t.Errorf("error %q\nshould contain %q", res.Text(), w)
				}
			}
			if diff := cmp.Diff(before, snap(t, path)); diff != "" {
				t.Errorf("file changed (-before +after):\n%s", diff)
			}
			if len(res.Changes) != 0 {
				t.Errorf("changes reported for a rejected batch: %v", res.Changes)
			}
		})
	}
}

// TestEditChain edits twice using the anchors the first result returns.
func TestEditChain(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{"f.txt": six}, false)
	res := sdktest.Call(t, e.g, "edit_file", map[string]any{"path": "f.txt", "edits": []map[string]any{ed("replace", 3, h("three"), "text", "3a\n3b")}})
	text := res.Text()
	i := strings.Index(text, "\n4|")
	if res.IsError || i < 0 {
		t.Fatalf("first edit: %s", text)
	}
	anchor := strings.SplitN(text[i+1:], "|", 3) // "4", hash, "3b..."
	res = sdktest.Call(t, e.g, "edit_file", map[string]any{"path": "f.txt", "edits": []map[string]any{ed("insert_after", 4, anchor[1], "text", "3c")}})
	if res.IsError {
		t.Fatalf("second edit: %s", res.Text())
	}
	if got := readString(t, e.path("f.txt")); got != "one\ntwo\n3a\n3b\n3c\nfour\nfive\nsix\n" {
		t.Errorf("file %q", got)
	}
}
