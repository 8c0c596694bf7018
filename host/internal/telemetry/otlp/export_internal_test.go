package otlp

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

// The tests retry at once: what they check is whether and what, not when.
func init() { retryFirst = time.Millisecond }

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	for h, want := range map[string]time.Duration{
		"":   0,
		"0":  0,
		"-3": 0,
		"7":  7 * time.Second,
		now.Add(90 * time.Second).Format(http.TimeFormat): 90 * time.Second,
		now.Add(-time.Minute).Format(http.TimeFormat):     0,
		"soon": 0,
	} {
		if got := retryAfter(h, now); got != want {
			t.Errorf("Retry-After %q: %v, want %v", h, got, want)
		}
	}
}

func TestRetryDelay(t *testing.T) {
	t.Parallel()
	st := func(details ...any) *status.Status {
		s := status.New(codes.Unavailable, "x")
		for _, d := range details {
			var err error
			switch d := d.(type) {
			case *errdetails.RetryInfo:
				s, err = s.WithDetails(d)
			case *errdetails.ErrorInfo:
				s, err = s.WithDetails(d)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	for name, c := range map[string]struct {
		st    *status.Status
		want  time.Duration
		found bool
	}{
		"none":            {st(), 0, false},
		"another detail":  {st(&errdetails.ErrorInfo{Reason: "r"}), 0, false},
		"2.5 s":           {st(&errdetails.ErrorInfo{Reason: "r"}, &errdetails.RetryInfo{RetryDelay: durationpb.New(2500 * time.Millisecond)}), 2500 * time.Millisecond, true},
		"two minutes":     {st(&errdetails.RetryInfo{RetryDelay: durationpb.New(2 * time.Minute)}), 2 * time.Minute, true},
		"negative":        {st(&errdetails.RetryInfo{RetryDelay: durationpb.New(-time.Second)}), 0, true},
		"no delay in it":  {st(&errdetails.RetryInfo{}), 0, true},
		"far beyond time": {st(&errdetails.RetryInfo{RetryDelay: &durationpb.Duration{Seconds: 1 << 62}}), time.Duration(maxDelaySeconds) * time.Second, true},
	} {
		got, found := retryDelay(c.st)
		if got != c.want || found != c.found {
			t.Errorf("%s: %v, %v; want %v, %v", name, got, found, c.want, c.found)
		}
	}
}

// flaky answers its first request with a retryable refusal and holds the
// next until its context ends.
type flaky struct{ calls int }

func (f *flaky) send(ctx context.Context, _ []byte) ([]byte, error) {
	f.calls++
	if f.calls == 1 {
		return nil, &retryable{err: errors.New("OTLP collector at x answered 502 Bad Gateway")}
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

func (f *flaky) close() error { return nil }

// TestTheLastAnswerIsTheError: when the export's time runs out in a try
// after a refusal, the error is the refusal, not the deadline. Whatever
// the machine's speed: a first try that outlasts the time ends the same.
func TestTheLastAnswerIsTheError(t *testing.T) {
	t.Parallel()
	e, err := newExporter(Traces, &Config{Protocol: "http/protobuf", Timeout: 50 * time.Millisecond}, func(err error) { t.Errorf("reported: %v", err) })
	if err != nil {
		t.Fatal(err)
	}
	e.sender = &flaky{}
	if err := e.export(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "answered 502") {
		t.Errorf("err = %v, want the collector's 502", err)
	}
}
