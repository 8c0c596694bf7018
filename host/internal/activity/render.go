package activity

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// RenderActivity is the text of the session group's activity tool: one line
// per record, in the order given (Recent gives newest first):
//
//	#14 15:04:05 client create_file(files) ok 20ms | path="/p/a.go" content=<1.2 KB> | changed: /p/a.go (created)
//	#15 15:04:06 agent:t1 replace_text(files) tool error 3ms call=K7QJ2M4XWZ3C5B6D | path="/p/a.go" | error: old text not found
//
//	#16 15:04:07 server upstream_register(github) | streamable-http, 12 tools, instructions: Use search first.
//	#17 15:04:09 client upstream_error github__create_issue(github) failed 60s call=... | error: MCP server "github" did not answer ...
//
// Fields with nothing to say are left out; call= is the call's id in the
// host's log.
func RenderActivity(records []Record) string {
	if len(records) == 0 {
		return "no calls recorded\n"
	}
	var b strings.Builder
	for _, r := range records {
		if r.Tool == "" { // an event, not a call
			fmt.Fprintf(&b, "#%d %s %s %s(%s) | %s\n", r.Seq, r.Time.Format("15:04:05"), r.Caller, r.Event, r.Group, r.Message)
			continue
		}
		fmt.Fprintf(&b, "#%d %s %s ", r.Seq, r.Time.Format("15:04:05"), r.Caller)
		if r.Event != "" {
			b.WriteString(r.Event + " ")
		}
		fmt.Fprintf(&b, "%s(%s) %s %s", r.Tool, r.Group, r.Outcome, formatDuration(r.Duration))
		if r.CallID != "" {
			b.WriteString(" call=" + r.CallID)
		}
		if r.Args != "" {
			b.WriteString(" | " + r.Args)
		}
		if r.Message != "" {
			b.WriteString(" | error: " + r.Message)
		}
		if len(r.Changes) > 0 {
			b.WriteString(" | changed: ")
			for i, c := range r.Changes {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(c.Path)
				switch {
				case c.Created && c.Deleted:
					b.WriteString(" (created and deleted)")
				case c.Created:
					b.WriteString(" (created)")
				case c.Deleted:
					b.WriteString(" (deleted)")
				}
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// RenderChanges is the text of the session group's changes tool: a line per
// file (what happened, how many calls by whom, the hashes), each followed by
// its diff from diffs when there is one. diffs maps a path to the text of
// Diff (or of its error); a file without a diff there says why when its
// entry is not diffable.
//
//	/p/a.go: modified by 2 calls (client, agent:t1), sha256 3f2a9c0d1e4b -> 9b1c77d0a2e5
//	--- a/p/a.go
//	+++ b/p/a.go
//	@@ -1 +1 @@
//	...
func RenderChanges(entries []FileEntry, diffs map[string]string) string {
	if len(entries) == 0 {
		return "no files changed this session\n"
	}
	var b strings.Builder
	for _, e := range entries {
		calls := strconv.Itoa(e.Calls) + " call"
		if e.Calls != 1 {
			calls += "s"
		}
		callers := make([]string, len(e.Callers))
		for i, c := range e.Callers {
			callers[i] = string(c)
		}
		by := calls + " (" + strings.Join(callers, ", ") + ")"
		if e.Unchanged() {
			what := "back to its content before this session"
			if e.Created {
				what = "created and deleted again"
			}
			fmt.Fprintf(&b, "%s: %s after %s; no diff\n", e.Path, what, by)
			continue
		}
		what := "modified"
		switch {
		case e.Created:
			what = "created"
		case e.Deleted:
			what = "deleted"
		}
		fmt.Fprintf(&b, "%s: %s by %s, sha256 %s -> %s\n", e.Path, what, by,
			hashOrNone(e.FirstBefore), hashOrNone(e.LastAfter))
		if d, ok := diffs[e.Path]; ok && d != "" {
			b.WriteString(d)
			if !strings.HasSuffix(d, "\n") {
				b.WriteByte('\n')
			}
		} else if !e.Diffable {
			b.WriteString("(only hashes are known: the contents were not carried or were dropped, so there is no diff)\n")
		}
	}
	return b.String()
}

// formatDuration is short: 420µs, 12ms, 3.4s.
func formatDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return strconv.FormatInt(d.Microseconds(), 10) + "µs"
	case d < 10*time.Second:
		return strconv.FormatInt(d.Round(time.Millisecond).Milliseconds(), 10) + "ms"
	default:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	}
}
