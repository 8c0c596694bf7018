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

// hangBound only keeps a broken test from hanging: what the tests assert is
// that a cancellation is seen, never how soon.
const hangBound = 30 * time.Second

// runAsync runs ag.Run in the background; its answer arrives on the channel.
func runAsync(ctx context.Context, ag *Agent, opts RunOptions) <-chan runAnswer {
	answer := make(chan runAnswer, 1)
	go func() {
		out, err := ag.Run(ctx, "task", opts)
		answer <- runAnswer{out, err}
	}()
	return answer
}

type runAnswer struct {
	out *Outcome
	err error
}

// await waits for the event on c, failing the test if it never comes.
func await[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(hangBound):
		t.Fatalf("%s did not happen within %s", what, hangBound)
		var zero T
		return zero
	}
}

func TestCancelDuringToolCall(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	started := make(chan struct{})
	toolSaw := make(chan error, 1) // what the tool's context said when it ended
	tools := &testToolset{}
	tools.add("run_command", "Runs until cancelled.", `{"type":"object"}`, func(ctx context.Context, _ json.RawMessage) (*sdk.Result, error) {
		close(started)
		<-ctx.Done()
		toolSaw <- ctx.Err()
		return nil, ctx.Err()
	})
	conn := newFakeConnector()
	be := NewScripted(Calls(call("c1", "run_command", `{}`)), Text("never"))
	ag := New(Config{Backend: be, Tools: tools})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	answer := runAsync(ctx, ag, RunOptions{Connector: conn})
	await(t, started, "the tool call")
	cancel()
	a := await(t, answer, "Run's return after the cancel")
	if a.err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled itself", a.err)
	}
	if err := await(t, toolSaw, "the tool's end"); !errors.Is(err, context.Canceled) {
		t.Errorf("the tool's context ended with %v, want context.Canceled", err)
	}
	if a.out.StoppedBy != StopError || len(be.Sent()) != 1 {
		t.Errorf("outcome %+v after %d requests", a.out, len(be.Sent()))
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
	answer := runAsync(ctx, ag, RunOptions{})
	await(t, entered, "the model request")
	cancel()
	if a := await(t, answer, "Run's return after the cancel"); a.err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", a.err)
	}
	await(t, handlerDone, "the request's cancellation at the server")
}
