package activity

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRenderActivity(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 1, 15, 4, 5, 0, time.UTC)
	tests := map[string]struct {
		records []Record
		want    string
	}{
		"none": {want: "no calls recorded\n"},
		"calls": {
			records: []Record{
				{Seq: 15, Time: at, Tool: "replace_text", Group: "files", Caller: Agent("t1"), Args: `path="/p/a.go"`,
					Outcome: ToolError, Message: "old text not found", Duration: 3400 * time.Microsecond},
				{Seq: 14, Time: at, Tool: "create_file", Group: "files", Caller: Client, Args: `path="/p/a.go" content=<1.2 KB>`,
					Outcome: OK, Duration: 20 * time.Millisecond, Changes: []Change{
						{Path: "/p/a.go", Created: true}, {Path: "/p/b.go"}, {Path: "/p/c.go", Deleted: true}, {Path: "/p/d", Created: true, Deleted: true}}},
				{Seq: 13, Time: at, Tool: "status", Group: "git", Caller: Client, Outcome: Cancelled, Message: "context canceled", Duration: 12 * time.Second},
				{Seq: 12, Time: at, Tool: "list", Group: "files", Caller: Client, Outcome: OK, Duration: 420 * time.Microsecond},
			},
			want: `#15 15:04:05 agent:t1 replace_text(files) tool error 3ms | path="/p/a.go" | error: old text not found
#14 15:04:05 client create_file(files) ok 20ms | path="/p/a.go" content=<1.2 KB> | changed: /p/a.go (created), /p/b.go, /p/c.go (deleted), /p/d (created and deleted)
#13 15:04:05 client status(git) cancelled 12.0s | error: context canceled
#12 15:04:05 client list(files) ok 420µs
`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if d := cmp.Diff(tc.want, RenderActivity(tc.records)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestRenderChanges(t *testing.T) {
	t.Parallel()
	l := New(Options{})
	record(l,
		change{Client, "/p/a.go", str("a\n"), str("b\n")},
		change{Agent("t1"), "/p/a.go", str("b\n"), str("c\n")},
		change{Client, "/p/bin", str("\xff"), str("\xfe")},
		change{Client, "/p/new", nil, str("n\n")},
		change{Client, "/p/old", str("o\n"), nil},
		change{Client, "/p/same", str("s\n"), str("t\n")},
		change{Client, "/p/same", str("t\n"), str("s\n")},
	)
	entries := l.Changes()
	diffs := map[string]string{}
	for _, e := range entries {
		if d, err := l.Diff(e.Path, 3); err == nil {
			diffs[e.Path] = d
		}
	}
	want := `/p/a.go: modified by 2 calls (client, agent:t1), sha256 ` + sum("a\n")[:12] + ` -> ` + sum("c\n")[:12] + `
--- a/p/a.go
+++ b/p/a.go
@@ -1 +1 @@
-a
+c
/p/bin: modified by 1 call (client), sha256 ` + sum("\xff")[:12] + ` -> ` + sum("\xfe")[:12] + `
(only hashes are known: the contents were not carried or were dropped, so there is no diff)
/p/new: created by 1 call (client), sha256 (none) -> ` + sum("n\n")[:12] + `
--- /dev/null
+++ b/p/new
@@ -0,0 +1 @@
+n
/p/old: deleted by 1 call (client), sha256 ` + sum("o\n")[:12] + ` -> (none)
--- a/p/old
+++ /dev/null
@@ -1 +0,0 @@
-o
/p/same: back to its content before this session after 2 calls (client); no diff
`
	if d := cmp.Diff(want, RenderChanges(entries, diffs)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if got := RenderChanges(nil, nil); got != "no files changed this session\n" {
		t.Errorf("empty: %q", got)
	}
}
