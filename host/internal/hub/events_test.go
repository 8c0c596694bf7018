package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/ramabana/ramabana-mcp/host/internal/activity"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// lockedBuffer is a log destination for concurrent writers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestCallLogLines: a tool's log lines reach the server's log naming the
// call by the id the activity feed has, whoever called it (an ask turn's
// calls have no events of their own); its progress reaches the caller.
func TestCallLogLines(t *testing.T) {
	t.Parallel()
	var log lockedBuffer
	h, err := New(Config{Roots: []string{t.TempDir()}, Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	box := sdk.NewToolbox("talk", sdk.WithVersion("1"))
	box.AddGroup(sdk.GroupSpec{Name: "talk"}, sdk.Tool{Spec: sdk.ToolSpec{Name: "talk", Kind: sdk.KindRead, InputSchema: json.RawMessage(`{"type":"object"}`)},
		Handler: func(_ context.Context, req *sdk.Request) (*sdk.Result, error) {
			req.Events.Log(sdk.LevelWarning, "talking to the log")
			req.Events.Progress(1, 2, "half way")
			return sdk.TextResult("said"), nil
		}})
	if err := h.AddGroup("talk", box); err != nil {
		t.Fatal(err)
	}
	progress := &progressEvents{}
	for _, call := range []func() (*sdk.Result, error){
		func() (*sdk.Result, error) { return h.Call(context.Background(), "talk", nil, progress) },
		func() (*sdk.Result, error) {
			return h.AgentCall(WithCaller(context.Background(), activity.Agent("1")), "talk", nil, nil)
		},
	} {
		if res, err := call(); err != nil || res.Text() != "said" {
			t.Fatalf("talk = %v, %v", res, err)
		}
	}
	for _, rec := range h.Activity().Recent(0, activity.Filter{Tool: "talk"}) {
		if !regexp.MustCompile(`level=WARN msg="talking to the log" tool=talk call_id=` + rec.CallID).MatchString(log.String()) {
			t.Errorf("no log line names %s's call %s:\n%s", rec.Caller, rec.CallID, log.String())
		}
	}
	if got := strings.Join(progress.msgs, ","); got != "half way" {
		t.Errorf("the client's call's progress = %q, want one", got)
	}
}

// progressEvents keeps progress messages.
type progressEvents struct{ msgs []string }

func (p *progressEvents) Progress(_, _ float64, msg string) { p.msgs = append(p.msgs, msg) }
func (p *progressEvents) Log(sdk.LogLevel, string)          {}
