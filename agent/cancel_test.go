package agent

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ramabana/ramabana-mcp/sdk"
	"go.uber.org/goleak"
)

// These tests are not parallel: goleak compares against the goroutines that
// exist when they start.

func TestCancelDuringToolCall(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	started := make(chan struct{})
	tools := &testToolset{}
	tools.add("run_command", "Runs until cancelled.", `{"type":"object"}`, func(ctx context.Context, _ json.RawMessage) (*sdk.Result, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	conn := newFakeConnector()
	be := NewScripted(Calls(call("c1", "run_command", `{}`)), Text("never"))
	ag := New(Config{Backend: be, Tools: tools})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-started
		cancel()
	}()
	start := time.Now()
	out, err := ag.Run(ctx, "task", RunOptions{Connector: conn})
	if !errors.Is(err, context.Canceled) || err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled itself", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Run returned %s after the cancel", d)
	}
	if out.StoppedBy != StopError || len(be.Sent()) != 1 {
		t.Errorf("outcome %+v after %d requests", out, len(be.Sent()))
	}
	if _, _, closed := conn.snapshot(); closed != 1 {
		t.Errorf("connector closed %d times, want 1", closed)
	}
	if st := ag.Status(); st.LastError != "" || st.Running != 0 || st.Turns != 1 {
		t.Errorf("status = %+v", st)
	}
}

func TestCancelDuringModelRequest(t *testing.T) {
	entered := make(chan struct{}, 1)
	handlerDone := make(chan struct{}, 1)
	stop := make(chan struct{}) // unblocks the handler if the test fails
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The server notices a closed connection only once the body is read.
		_, _ = io.Copy(io.Discard, r.Body)
		entered <- struct{}{}
		select {
		case <-r.Context().Done(): // the client went away
			handlerDone <- struct{}{}
		case <-stop:
		}
	}))
	client := &http.Client{Transport: &http.Transport{}}
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	defer srv.Close()
	defer close(stop)
	defer client.CloseIdleConnections()

	ag := New(Config{Backend: NewOpenAI(OpenAIConfig{BaseURL: srv.URL, Model: "m", HTTPClient: client})})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-entered
		cancel()
	}()
	start := time.Now()
	_, err := ag.Run(ctx, "task", RunOptions{})
	if err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Run returned %s after the cancel", d)
	}
	select {
	case <-handlerDone:
	case <-time.After(5 * time.Second):
		t.Error("the server never saw the request cancelled")
	}
}
