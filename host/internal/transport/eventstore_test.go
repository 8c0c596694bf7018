package transport

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ev is an event of n bytes in all, as the store counts it, whose data
// starts with name.
func ev(name string, n int) []byte {
	return []byte(name + strings.Repeat(".", n-EventOverhead-len(name)))
}

// kept lists the names of the events the stream keeps after index, or the
// error.
func kept(t *testing.T, s *EventStore, session, stream string, index int) ([]string, error) {
	t.Helper()
	var names []string
	for d, err := range s.After(context.Background(), session, stream, index) {
		if err != nil {
			return names, err
		}
		names = append(names, strings.TrimRight(string(d), "."))
	}
	return names, nil
}

func TestEventStoreBounds(t *testing.T) {
	t.Parallel()
	type appendOp struct {
		session, stream, name string
		size                  int
	}
	// A want is what a resume of stream after index gets: the names of the
	// events sent, or an error: "purged" (mcp.ErrEventsPurged) or "unsent"
	// (an index the stream never reached).
	type want struct {
		session, stream string
		after           int
		names           []string
		err             string
	}
	for name, tc := range map[string]struct {
		perSession, total int
		appends           []appendOp
		want              []want
	}{
		"under the caps everything is kept": {
			perSession: 1000, total: 2000,
			appends: []appendOp{{"s", "a", "a0", 300}, {"s", "a", "a1", 300}, {"s", "b", "b0", 300}},
			want: []want{
				{session: "s", stream: "a", after: -1, names: []string{"a0", "a1"}},
				{session: "s", stream: "a", after: 0, names: []string{"a1"}},
				{session: "s", stream: "a", after: 1},
				{session: "s", stream: "a", after: 2, err: "unsent"},
				{session: "s", stream: "b", after: -1, names: []string{"b0"}},
				{session: "s", stream: "c", after: -1, err: "purged"},
				{session: "u", stream: "a", after: -1, err: "purged"},
			},
		},
		"a session over its cap drops its oldest events, of any stream": {
			perSession: 1000, total: 10000,
			appends: []appendOp{
				{"s", "a", "a0", 400}, {"s", "b", "b0", 400}, {"s", "a", "a1", 400},
				{"t", "c", "c0", 400},
			},
			want: []want{
				{session: "s", stream: "a", after: -1, err: "purged"},
				{session: "s", stream: "a", after: 0, names: []string{"a1"}},
				{session: "s", stream: "b", after: -1, names: []string{"b0"}},
				{session: "t", stream: "c", after: -1, names: []string{"c0"}},
			},
		},
		"the total cap drops the oldest events of all sessions": {
			perSession: 1000, total: 1000,
			appends: []appendOp{{"s", "a", "a0", 400}, {"t", "c", "c0", 400}, {"t", "c", "c1", 400}},
			want: []want{
				{session: "s", stream: "a", after: -1, err: "purged"},
				{session: "s", stream: "a", after: 0},
				{session: "t", stream: "c", after: -1, names: []string{"c0", "c1"}},
			},
		},
		"an event over the cap is not kept, nor what came before it": {
			perSession: 1000, total: 10000,
			appends: []appendOp{{"s", "a", "a0", 300}, {"s", "a", "big", 1001}, {"s", "a", "a2", 300}, {"s", "b", "b0", 300}},
			want: []want{
				{session: "s", stream: "a", after: -1, err: "purged"},
				{session: "s", stream: "a", after: 0, err: "purged"},
				{session: "s", stream: "a", after: 1, names: []string{"a2"}},
				{session: "s", stream: "b", after: -1, names: []string{"b0"}},
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := NewEventStore(tc.perSession, tc.total)
			for _, a := range tc.appends {
				if err := openAppend(s, a.session, a.stream, ev(a.name, a.size)); err != nil {
					t.Fatal(err)
				}
				if total, _ := s.Used(""); total > tc.total {
					t.Fatalf("after %s: %d bytes kept, over the total cap %d", a.name, total, tc.total)
				}
				if _, used := s.Used(a.session); used > tc.perSession {
					t.Fatalf("after %s: session %s keeps %d bytes, over its cap %d", a.name, a.session, used, tc.perSession)
				}
			}
			for _, w := range tc.want {
				names, err := kept(t, s, w.session, w.stream, w.after)
				got := ""
				switch {
				case errors.Is(err, mcp.ErrEventsPurged):
					got = "purged"
				case err != nil:
					got = "unsent"
				}
				if got != w.err || !cmp.Equal(names, w.names) {
					t.Errorf("%s/%s after %d = %q, error %v; want %q, error %q", w.session, w.stream, w.after, names, err, w.names, w.err)
				}
			}
		})
	}
}

// A session's streams without a kept event are remembered up to a point
// (the SDK never says one ended); one forgotten while still open is never
// resumed, since its numbering is lost, and the standalone stream is never
// forgotten.
func TestEventStoreForgetsIdleStreams(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := NewEventStore(1000, 1000)
	for _, id := range []string{"", "open"} {
		if err := openAppend(s, "s", id, ev(id+"0", 300)); err != nil {
			t.Fatal(err)
		}
	}
	// Each event fills the session: it leaves every stream before it idle.
	for i := range maxIdleStreams {
		if err := openAppend(s, "s", fmt.Sprint("done", i), ev("full", 1000)); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"", "open"} {
		if err := s.Append(ctx, "s", id, ev(id+"1", 300)); err != nil {
			t.Fatal(err)
		}
	}
	if names, err := kept(t, s, "s", "", 0); err != nil || !cmp.Equal(names, []string{"1"}) {
		t.Errorf("the standalone stream after 0 = %q, %v; want [1]", names, err)
	}
	if names, err := kept(t, s, "s", "open", 0); !errors.Is(err, mcp.ErrEventsPurged) {
		t.Errorf("a forgotten stream after 0 = %q, %v; want ErrEventsPurged", names, err)
	}
	if _, used := s.Used("s"); used != 300 {
		t.Errorf("the session keeps %d bytes, want 300 (the forgotten stream's new event is not kept)", used)
	}
	// A stream opened after the session forgot some is kept: the SDK opens
	// each request's stream under a fresh id, so a long session would
	// otherwise keep nothing.
	if err := openAppend(s, "s", "later", ev("later0", 300)); err != nil {
		t.Fatal(err)
	}
	if names, err := kept(t, s, "s", "later", -1); err != nil || !cmp.Equal(names, []string{"later0"}) {
		t.Errorf("a stream opened after forgetting, from the start = %q, %v; want [later0]", names, err)
	}
}

// openAppend opens the stream, as the SDK does before its first event,
// and appends data to it.
func openAppend(s *EventStore, session, stream string, data []byte) error {
	if err := s.Open(context.Background(), session, stream); err != nil {
		return err
	}
	return s.Append(context.Background(), session, stream, data)
}

func TestEventStoreSessionClosedFreesItsEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := NewEventStore(1000, 1000)
	for _, sess := range []string{"s", "t"} {
		if err := openAppend(s, sess, "a", ev(sess, 400)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SessionClosed(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if total, used := s.Used("t"); total != 400 || used != 400 {
		t.Errorf("after closing s: %d bytes in all, %d for t; want 400 and 400", total, used)
	}
	// t's event is the oldest left: the total cap drops it, not a
	// leftover of s.
	if err := s.Append(ctx, "t", "a", ev("t1", 700)); err != nil {
		t.Fatal(err)
	}
	if names, err := kept(t, s, "t", "a", 0); err != nil || !cmp.Equal(names, []string{"t1"}) {
		t.Errorf("t after 0 = %q, %v; want [t1]", names, err)
	}
	if names, err := kept(t, s, "s", "a", -1); !errors.Is(err, mcp.ErrEventsPurged) {
		t.Errorf("closed session = %q, %v; want ErrEventsPurged", names, err)
	}
	// An event the SDK appends as the session closes does not bring the
	// session back, where nothing would free it again.
	if err := s.Append(ctx, "s", "a", ev("late", 300)); err != nil {
		t.Fatal(err)
	}
	if _, used := s.Used("s"); used != 0 {
		t.Errorf("a closed session keeps %d bytes after a late append, want 0", used)
	}
}
