package activity

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ramabana/ramabana-mcp/sdk"
)

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// change is one call's file change; nil before or after means absent.
type change struct {
	caller        Caller
	path          string
	before, after *string
}

func str(s string) *string { return &s }

func bytesOf(s *string) []byte {
	if s == nil {
		return nil
	}
	return []byte(*s)
}

func record(l *Log, changes ...change) {
	for _, c := range changes {
		res := sdk.TextResult("done")
		res.Changes = []sdk.FileChange{sdk.NewFileChange(c.path, bytesOf(c.before), bytesOf(c.after))}
		l.Start("edit", "files", c.caller, nil).Finish(res, nil)
	}
}

func TestLedger(t *testing.T) {
	t.Parallel()
	const p = "/p/f.txt"
	tests := map[string]struct {
		changes []change
		entry   FileEntry
		diff    string
		errIs   error
	}{
		"several calls: first before, last after": {
			changes: []change{
				{Client, p, str("a\nb\nc\n"), str("a\nB\nc\n")},
				{Agent("t1"), p, str("a\nB\nc\n"), str("a\nB\nc\nd\n")},
				{Client, p, str("a\nB\nc\nd\n"), str("A\nB\nc\nd\n")},
			},
			entry: FileEntry{Path: p, FirstBefore: sum("a\nb\nc\n"), LastAfter: sum("A\nB\nc\nd\n"),
				Calls: 3, Callers: []Caller{Client, "agent:t1"}, Diffable: true},
			diff: "--- a/p/f.txt\n+++ b/p/f.txt\n@@ -1,3 +1,4 @@\n-a\n-b\n+A\n+B\n c\n+d\n",
		},
		"created then edited": {
			changes: []change{
				{Client, p, nil, str("a\n")},
				{Client, p, str("a\n"), str("a\nb")},
			},
			entry: FileEntry{Path: p, LastAfter: sum("a\nb"), Created: true, Calls: 2, Callers: []Caller{Client}, Diffable: true},
			diff:  "--- /dev/null\n+++ b/p/f.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n",
		},
		"deleted": {
			changes: []change{{Client, p, str("x\r\ny\r\n"), nil}},
			entry:   FileEntry{Path: p, FirstBefore: sum("x\r\ny\r\n"), Deleted: true, Calls: 1, Callers: []Caller{Client}, Diffable: true},
			diff:    "--- a/p/f.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\r\n-y\r\n",
		},
		"empty file filled": {
			changes: []change{{Client, p, str(""), str("a\n")}},
			entry:   FileEntry{Path: p, FirstBefore: sum(""), LastAfter: sum("a\n"), Calls: 1, Callers: []Caller{Client}, Diffable: true},
			diff:    "--- a/p/f.txt\n+++ b/p/f.txt\n@@ -0,0 +1 @@\n+a\n",
		},
		"back to original": {
			changes: []change{
				{Client, p, str("v1\n"), str("v2\n")},
				{Agent("t2"), p, str("v2\n"), str("v1\n")},
			},
			entry: FileEntry{Path: p, FirstBefore: sum("v1\n"), LastAfter: sum("v1\n"), Calls: 2, Callers: []Caller{Client, "agent:t2"}, Diffable: true},
			diff:  "no changes: /p/f.txt is back to its content before this session's first change to it\n",
		},
		"created then deleted": {
			changes: []change{{Client, p, nil, str("tmp\n")}, {Client, p, str("tmp\n"), nil}},
			entry:   FileEntry{Path: p, Created: true, Deleted: true, Calls: 2, Callers: []Caller{Client}, Diffable: true},
			diff:    "no changes: /p/f.txt is back to its content before this session's first change to it\n",
		},
		"binary": {
			changes: []change{{Client, p, str("\xff\x00\x01"), str("\xff\x00\x02")}},
			entry:   FileEntry{Path: p, FirstBefore: sum("\xff\x00\x01"), LastAfter: sum("\xff\x00\x02"), Calls: 1, Callers: []Caller{Client}},
			errIs:   ErrOnlyHashes,
		},
		"binary in the middle": { // the sdk carries both sides or neither
			changes: []change{
				{Client, p, str("a\n"), str("\xff")},
				{Client, p, str("\xff"), str("b\n")},
			},
			entry: FileEntry{Path: p, FirstBefore: sum("a\n"), LastAfter: sum("b\n"), Calls: 2, Callers: []Caller{Client}},
			errIs: ErrOnlyHashes,
		},
		"binary first before is lost for good": {
			changes: []change{
				{Client, p, str("\xff"), str("a\n")},
				{Client, p, str("a\n"), str("b\n")},
			},
			entry: FileEntry{Path: p, FirstBefore: sum("\xff"), LastAfter: sum("b\n"), Calls: 2, Callers: []Caller{Client}},
			errIs: ErrOnlyHashes,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l := New(Options{})
			record(l, tc.changes...)
			if d := cmp.Diff([]FileEntry{tc.entry}, l.Changes()); d != "" {
				t.Errorf("entry (-want +got):\n%s", d)
			}
			got, err := l.Diff(p, 3)
			if !errors.Is(err, tc.errIs) {
				t.Fatalf("Diff error %v, want %v", err, tc.errIs)
			}
			if d := cmp.Diff(tc.diff, got); d != "" {
				t.Errorf("diff (-want +got):\n%s", d)
			}
		})
	}
}

func TestLedgerContentsChecked(t *testing.T) {
	t.Parallel()
	l := New(Options{})
	// A plugin that sends contents not matching its hashes gets no diff;
	// an empty file's content may arrive as nil (proto bytes).
	lying := sdk.TextResult("")
	lying.Changes = []sdk.FileChange{
		{Path: "/lie", BeforeSHA256: sum("a\n"), AfterSHA256: sum("b\n"), Before: []byte("a\n"), After: []byte("c\n")},
		{Path: "/empty", BeforeSHA256: sum("a\n"), AfterSHA256: sum(""), Before: []byte("a\n")},
		{Path: "/empty", BeforeSHA256: sum(""), AfterSHA256: sum("z\n"), After: []byte("z\n")}, // same call
	}
	l.Start("t", "g", Client, nil).Finish(lying, nil)
	// Sides are checked one by one: a plugin may carry the text side of a
	// change to binary, and the diff ends on the next text content.
	mid1, mid2 := sdk.TextResult(""), sdk.TextResult("")
	mid1.Changes = []sdk.FileChange{{Path: "/mid", BeforeSHA256: sum("a\n"), AfterSHA256: sum("\xff"), Before: []byte("a\n"), After: []byte("\xff")}}
	mid2.Changes = []sdk.FileChange{{Path: "/mid", BeforeSHA256: sum("\xff"), AfterSHA256: sum("b\n"), After: []byte("b\n")}}
	l.Start("t", "g", Client, nil).Finish(mid1, nil)
	if _, err := l.Diff("/mid", 3); !errors.Is(err, ErrOnlyHashes) {
		t.Errorf("binary after: err %v", err)
	}
	l.Start("t", "g", Client, nil).Finish(mid2, nil)
	if got, err := l.Diff("/mid", 0); err != nil || got != "--- a/mid\n+++ b/mid\n@@ -1 +1 @@\n-a\n+b\n" {
		t.Errorf("Diff = %q, %v", got, err)
	}
	if _, err := l.Diff("/lie", 3); !errors.Is(err, ErrOnlyHashes) || !strings.Contains(err.Error(), "not carried") {
		t.Errorf("lying change: err %v", err)
	}
	got, err := l.Diff("/empty", 3)
	if want := "--- a/empty\n+++ b/empty\n@@ -1 +1 @@\n-a\n+z\n"; err != nil || got != want {
		t.Errorf("Diff = %q, %v; want %q", got, err, want)
	}
	if e := l.Changes()[0]; e.Path != "/empty" || e.Calls != 1 || !e.Diffable {
		t.Errorf("two changes in one call: %+v", e)
	}
	if _, err := l.Diff("/never", 3); !errors.Is(err, ErrUnknownPath) {
		t.Errorf("unknown path: err %v", err)
	}
}

func TestLedgerEviction(t *testing.T) {
	t.Parallel()
	c40, c45 := strings.Repeat("a\n", 20), strings.Repeat("b", 44)+"\n"
	l := New(Options{MaxLedgerBytes: 100})
	diffable := func() map[string]bool {
		out := map[string]bool{}
		for _, e := range l.Changes() {
			out[e.Path] = e.Diffable
		}
		if n := l.LedgerBytes(); n > 100 {
			t.Fatalf("ledger holds %d bytes, more than 100", n)
		}
		return out
	}
	// Created files hold their after content only (40 bytes each).
	record(l, change{Client, "/1", nil, &c40}, change{Client, "/2", nil, &c40}, change{Client, "/3", nil, &c40})
	if d := cmp.Diff(map[string]bool{"/1": false, "/2": true, "/3": true}, diffable()); d != "" {
		t.Errorf("after 3 files (-want +got):\n%s", d)
	}
	_, err := l.Diff("/1", 3)
	if !errors.Is(err, ErrOnlyHashes) || !strings.Contains(err.Error(), "dropped") {
		t.Errorf("evicted file: err %v", err)
	}
	// Touching /2 makes /3 the least recently changed.
	record(l, change{Agent("t"), "/2", &c40, &c45}, change{Client, "/4", nil, &c40})
	if d := cmp.Diff(map[string]bool{"/1": false, "/2": true, "/3": false, "/4": true}, diffable()); d != "" {
		t.Errorf("after touching /2 (-want +got):\n%s", d)
	}
	if n := l.LedgerBytes(); n != 85 {
		t.Errorf("ledger holds %d bytes, want 85", n)
	}
	// A created file's before side is known to be empty, so a later change
	// makes it diffable again; a modified file's first before is gone.
	record(l, change{Client, "/1", &c40, &c45})
	if d := cmp.Diff(map[string]bool{"/1": true, "/2": false, "/3": false, "/4": true}, diffable()); d != "" {
		t.Errorf("after editing /1 again (-want +got):\n%s", d)
	}
	e := l.Changes()[0]
	if e.Path != "/1" || e.Calls != 2 || !e.Created || e.LastAfter != sum(c45) {
		t.Errorf("evicted entry kept wrong counts: %+v", e)
	}
	// A file larger than the whole budget keeps only its hashes.
	big := strings.Repeat("x\n", 60)
	record(l, change{Client, "/big", &c40, &big})
	if diffable()["/big"] {
		t.Error("/big is diffable")
	}
}
