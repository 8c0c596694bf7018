package activity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ramabana/ramabana-mcp/sdk"
)

func TestCaller(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		c       Caller
		agent   bool
		turn    string
		display string
	}{
		"client":     {c: Client, display: "client"},
		"agent":      {c: Agent("t7"), agent: true, turn: "t7", display: "agent:t7"},
		"agent bare": {c: Agent(""), agent: true, display: "agent:"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if tc.c.IsAgent() != tc.agent || tc.c.Turn() != tc.turn || string(tc.c) != tc.display {
				t.Errorf("%q: IsAgent %v Turn %q", tc.c, tc.c.IsAgent(), tc.c.Turn())
			}
		})
	}
}

func TestFinishOutcome(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		res     *sdk.Result
		err     error
		outcome Outcome
		message string
	}{
		"ok":                {res: sdk.TextResult("fine\nmore"), outcome: OK},
		"tool error":        {res: toolError("\nline 12 changed since you read it\ncurrent: 12|a3"), outcome: ToolError, message: "line 12 changed since you read it"},
		"failed":            {err: errors.New("plugin \"git\" exited: signal: killed\nstderr..."), outcome: Failed, message: `plugin "git" exited: signal: killed`},
		"cancelled":         {err: fmt.Errorf("call: %w", context.Canceled), outcome: Cancelled, message: "call: context canceled"},
		"deadline is fault": {err: context.DeadlineExceeded, outcome: Failed, message: "context deadline exceeded"},
		"no result":         {outcome: Failed, message: "no result"},
		"long message":      {res: toolError("%0300d", 0), outcome: ToolError, message: fmt.Sprintf("%0199d…", 0)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l := New(Options{})
			l.Start("t", "g", Client, nil).Finish(tc.res, tc.err)
			recs := l.Recent(0, Filter{})
			if len(recs) != 1 {
				t.Fatalf("got %d records", len(recs))
			}
			if r := recs[0]; r.Outcome != tc.outcome || r.Message != tc.message {
				t.Errorf("got %q %q, want %q %q", r.Outcome, r.Message, tc.outcome, tc.message)
			}
		})
	}
}

func TestRecord(t *testing.T) {
	t.Parallel()
	l := New(Options{})
	args := json.RawMessage(`{"path":"/p/a.go","content":"hello\n"}`)
	p := l.Start("create_file", "files", Agent("t1"), args)
	copy(args, `{"oops":1}`) // the caller reuses its buffer
	res := sdk.TextResult("created")
	res.Changes = []sdk.FileChange{sdk.NewFileChange("/p/a.go", nil, []byte("hello\n"))}
	p.Finish(res, nil)
	p.Finish(toolError("again"), nil) // no-op
	var nilPending *Pending
	nilPending.Finish(nil, nil) // no-op

	recs := l.Recent(0, Filter{})
	if len(recs) != 1 {
		t.Fatalf("got %d records, want 1", len(recs))
	}
	r := recs[0]
	if r.Time.IsZero() || r.Duration < 0 {
		t.Errorf("time %v duration %v", r.Time, r.Duration)
	}
	r.Time, r.Duration = r.Time.UTC().Truncate(0), 0
	want := Record{
		Seq: 1, Time: r.Time, Tool: "create_file", Group: "files", Caller: "agent:t1",
		Args: `path="/p/a.go" content=<6 B>`, Outcome: OK,
		Changes: []Change{{Path: "/p/a.go", AfterSHA256: res.Changes[0].AfterSHA256, Created: true}},
	}
	if d := cmp.Diff(want, r); d != "" {
		t.Errorf("record (-want +got):\n%s", d)
	}
}

func seqs(recs []Record) []uint64 {
	out := make([]uint64, len(recs))
	for i, r := range recs {
		out[i] = r.Seq
	}
	return out
}

func TestRollOffAndFilter(t *testing.T) {
	t.Parallel()
	l := New(Options{MaxRecords: 5})
	for i := 1; i <= 12; i++ {
		caller, tool := Client, "view"
		if i%2 == 0 {
			caller, tool = Agent(strconv.Itoa(i)), "edit"
		}
		l.Start(tool, "files", caller, nil).Finish(sdk.TextResult(""), nil)
	}
	if n := l.Len(); n != 5 {
		t.Errorf("Len = %d, want 5", n)
	}
	tests := map[string]struct {
		n      int
		filter Filter
		want   []uint64
	}{
		"all":            {want: []uint64{12, 11, 10, 9, 8}},
		"newest two":     {n: 2, want: []uint64{12, 11}},
		"since":          {filter: Filter{Since: 10}, want: []uint64{12, 11}},
		"since all gone": {filter: Filter{Since: 12}, want: []uint64{}},
		"tool":           {filter: Filter{Tool: "view"}, want: []uint64{11, 9}},
		"group":          {filter: Filter{Group: "git"}, want: []uint64{}},
		"caller":         {filter: Filter{Caller: Client}, want: []uint64{11, 9}},
		"one agent turn": {filter: Filter{Caller: Agent("10")}, want: []uint64{10}},
		"every agent":    {n: 2, filter: Filter{Caller: "agent"}, want: []uint64{12, 10}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if d := cmp.Diff(tc.want, seqs(l.Recent(tc.n, tc.filter))); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestConcurrentStartFinish(t *testing.T) {
	t.Parallel()
	const workers, calls = 16, 200
	l := New(Options{MaxRecords: workers * calls})
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			caller := Agent(strconv.Itoa(w))
			for i := range calls {
				p := l.Start("edit", "files", caller, json.RawMessage(`{"i":`+strconv.Itoa(i)+`}`))
				res := sdk.TextResult("ok")
				before := fmt.Sprintf("w%d i%d\n", w, i)
				res.Changes = []sdk.FileChange{
					sdk.NewFileChange("/shared", []byte(before), []byte(before+"x\n")),
					sdk.NewFileChange(fmt.Sprintf("/own/%d", w), []byte(before), []byte(before+"y\n")),
				}
				var wg2 sync.WaitGroup
				for range 3 { // racing Finishes record the call once
					wg2.Go(func() { p.Finish(res, nil) })
				}
				wg2.Wait()
			}
		})
	}
	wg.Wait()

	recs := l.Recent(0, Filter{})
	if len(recs) != workers*calls {
		t.Fatalf("got %d records, want %d", len(recs), workers*calls)
	}
	perCaller := map[Caller]int{}
	for i, r := range recs {
		if want := uint64(workers*calls - i); r.Seq != want {
			t.Fatalf("record %d has Seq %d, want %d", i, r.Seq, want)
		}
		perCaller[r.Caller]++
	}
	for w := range workers {
		if n := perCaller[Agent(strconv.Itoa(w))]; n != calls {
			t.Errorf("worker %d: %d records, want %d", w, n, calls)
		}
	}
	entries := l.Changes()
	if len(entries) != workers+1 {
		t.Fatalf("got %d ledger entries, want %d", len(entries), workers+1)
	}
	for _, e := range entries {
		wantCalls, wantCallers := calls, 1
		if e.Path == "/shared" {
			wantCalls, wantCallers = workers*calls, workers
		}
		if e.Calls != wantCalls || len(e.Callers) != wantCallers {
			t.Errorf("%s: %d calls by %d callers, want %d by %d", e.Path, e.Calls, len(e.Callers), wantCalls, wantCallers)
		}
	}
}

func BenchmarkStartFinish(b *testing.B) {
	args := json.RawMessage(`{"path":"/p/src/main.go","old":"func main() {\n","new":"func main() {\n\trun()\n","replace_all":false}`)
	before := []byte("package main\n\nfunc main() {\n}\n")
	after := []byte("package main\n\nfunc main() {\n\trun()\n}\n")
	plain := sdk.TextResult("replaced 1 occurrence")
	changed := sdk.TextResult("replaced 1 occurrence")
	changed.Changes = []sdk.FileChange{sdk.NewFileChange("/p/src/main.go", before, after)}
	for name, res := range map[string]*sdk.Result{"no changes": plain, "one change": changed} {
		b.Run(name, func(b *testing.B) {
			l := New(Options{})
			b.ReportAllocs()
			for b.Loop() {
				l.Start("replace_text", "files", Client, args).Finish(res, nil)
			}
		})
	}
}

// toolError is a failed result, as sdk.Failf makes of a handler's failure.
func toolError(format string, args ...any) *sdk.Result {
	return &sdk.Result{IsError: true, Content: []sdk.Content{{Text: fmt.Sprintf(format, args...)}}}
}

// TestSessionLogs: each session's log holds its own calls and changes,
// and the server's own events; the server's log holds every session's.
func TestSessionLogs(t *testing.T) {
	t.Parallel()
	server := New(Options{})
	a, b := server.Session(), server.Session()
	change := func(path string) *sdk.Result {
		return &sdk.Result{Changes: []sdk.FileChange{{Path: path, AfterSHA256: "ab", After: []byte("x\n")}}}
	}
	a.Start("create_file", "files", Client, json.RawMessage(`{"path":"a.txt"}`)).Finish(change("/r/a.txt"), nil)
	server.Note(EventUpstreamRegister, "everything", Server, "connected")
	b.Start("view_file", "files", Client, nil).Finish(sdk.TextResult("x"), nil)
	b.Start("create_file", "files", Agent("1"), nil).Finish(change("/r/b.txt"), nil)

	tools := func(recs []Record) []string {
		var out []string
		for _, r := range recs {
			out = append(out, r.Tool+r.Event)
		}
		return out
	}
	for name, tc := range map[string]struct {
		log         *Log
		filter      Filter
		want, files []string
	}{
		"session a":              {log: a, want: []string{"upstream_register", "create_file"}, files: []string{"/r/a.txt"}},
		"session b":              {log: b, want: []string{"create_file", "view_file", "upstream_register"}, files: []string{"/r/b.txt"}},
		"session b, agent only":  {log: b, filter: Filter{Caller: "agent"}, want: []string{"create_file"}, files: []string{"/r/b.txt"}},
		"session b, server only": {log: b, filter: Filter{Caller: Server}, want: []string{"upstream_register"}, files: []string{"/r/b.txt"}},
		"the server, every call": {log: server, want: []string{"create_file", "view_file", "upstream_register", "create_file"}, files: []string{"/r/a.txt", "/r/b.txt"}},
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tools(tc.log.Recent(0, tc.filter))); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
			var files []string
			for _, e := range tc.log.Changes() {
				files = append(files, e.Path)
			}
			if diff := cmp.Diff(tc.files, files); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
		})
	}
}
