package transport

import (
	"container/list"
	"context"
	"fmt"
	"iter"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The event store's defaults (see NewEventStore and HTTPOptions).
const (
	// DefaultEventBytesPerSession is what one streamable HTTP session may
	// keep for resuming its streams.
	DefaultEventBytesPerSession = 4 << 20
	// DefaultEventBytesTotal is what all sessions together may keep.
	DefaultEventBytesTotal = 32 << 20
	// EventOverhead is what each kept event counts for besides its data: the
	// store's own bookkeeping, so that many small events (progress, the
	// empty priming events) are bounded too.
	EventOverhead = 192
	// maxIdleStreams is how many streams without a kept event a session
	// remembers the numbering of (the SDK never says a stream has ended).
	maxIdleStreams = 64
)

// EventStore keeps the events the server sends on streamable HTTP streams,
// so that a client whose SSE connection broke reconnects with Last-Event-ID
// and is sent what it missed (an mcp.EventStore). Its memory is bounded
// twice: a session keeps at most perSession bytes of events and all
// sessions together at most total, each event counting its data plus
// EventOverhead; past either cap the oldest events (of that session, or of
// all) are dropped first. An event larger than perSession is not kept, nor
// anything before it on its stream. A resume that reaches back past a
// dropped event gets mcp.ErrEventsPurged, which the SDK answers with 400:
// the client is never sent a stream with a hole in it. It is safe for
// concurrent use.
type EventStore struct {
	perSession, total int

	mu       sync.Mutex
	used     int
	sessions map[string]*eventSession
	order    list.List // every kept *storedEvent, oldest first
}

type eventSession struct {
	used    int
	streams map[string]*eventStream
	order   list.List // the session's kept *storedEvent, oldest first
	idle    list.List // its *eventStream that keep no event, longest idle first
	// forgot is set once an idle stream has been forgotten: a later event
	// on a stream the session does not know may then be on that one.
	forgot bool
}

// An eventStream numbers its events from 0 as the SDK does: the event with
// index i is events[i-first]; the next one appended gets first+len(events).
type eventStream struct {
	id     string
	first  int
	events []*storedEvent
	// lost is set for a stream forgotten while open: its numbering is
	// unknown, so it keeps nothing and can be resumed from nowhere.
	lost     bool
	idleElem *list.Element // in the session's idle list while events is empty
}

type storedEvent struct {
	data      []byte
	size      int
	session   *eventSession
	stream    *eventStream
	all, mine *list.Element // in the store's order and in the session's
}

// NewEventStore returns a store bounded to perSession bytes a session and
// total bytes in all (each defaults when not positive).
func NewEventStore(perSession, total int) *EventStore {
	if perSession <= 0 {
		perSession = DefaultEventBytesPerSession
	}
	if total <= 0 {
		total = DefaultEventBytesTotal
	}
	return &EventStore{perSession: perSession, total: total, sessions: map[string]*eventSession{}}
}

// Used reports the bytes kept, in all and for one session, as the caps
// count them.
func (s *EventStore) Used(sessionID string) (total, session int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess := s.sessions[sessionID]; sess != nil {
		session = sess.used
	}
	return s.used, session
}

// Open implements mcp.EventStore: the SDK opens each stream of a request
// before its first event.
func (s *EventStore) Open(_ context.Context, sessionID, streamID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stream(sessionID, streamID, true)
	return nil
}

// stream returns the session's stream. Opening, it makes the session and
// the stream as needed; otherwise (an Append) it makes neither session nor
// stream anew: an unknown session is one already closed, whose events
// would never be freed (nil), and an unknown stream of a session that
// forgot some is one of those, its earlier events gone (lost). Every
// stream is opened before its first event, and the SDK gives each a fresh
// id, so a session that forgot streams still keeps the new ones. Requires
// s.mu.
func (s *EventStore) stream(sessionID, streamID string, opening bool) *eventStream {
	sess := s.sessions[sessionID]
	if sess == nil {
		if !opening {
			return nil
		}
		sess = &eventSession{streams: map[string]*eventStream{}}
		s.sessions[sessionID] = sess
	}
	st := sess.streams[streamID]
	if st == nil {
		// The standalone stream ("") is never forgotten.
		st = &eventStream{id: streamID, lost: !opening && sess.forgot && streamID != ""}
		sess.streams[streamID] = st
		sess.markIdle(st)
	}
	return st
}

// Append implements mcp.EventStore.
func (s *EventStore) Append(_ context.Context, sessionID, streamID string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stream(sessionID, streamID, false)
	if st == nil || st.lost {
		return nil
	}
	sess := s.sessions[sessionID]
	size := len(data) + EventOverhead
	if size > s.perSession || size > s.total {
		// Not kept: neither is what came before it, which a resume could
		// only be sent with this one missing.
		for len(st.events) > 0 {
			s.drop(st.events[0])
		}
		st.first++
		return nil
	}
	for sess.used+size > s.perSession {
		s.drop(sess.order.Front().Value.(*storedEvent))
	}
	for s.used+size > s.total {
		s.drop(s.order.Front().Value.(*storedEvent))
	}
	// Dropping may have left st idle long enough to be forgotten; its
	// numbering is still known here.
	sess.streams[streamID] = st
	e := &storedEvent{data: data, size: size, session: sess, stream: st}
	e.all = s.order.PushBack(e)
	e.mine = sess.order.PushBack(e)
	st.events = append(st.events, e)
	if st.idleElem != nil {
		sess.idle.Remove(st.idleElem)
		st.idleElem = nil
	}
	sess.used += size
	s.used += size
	return nil
}

// drop forgets e, the oldest event its stream keeps: events reach the
// store's and the session's order in the order of their streams. Requires
// s.mu.
func (s *EventStore) drop(e *storedEvent) {
	st, sess := e.stream, e.session
	st.events[0] = nil
	st.events = st.events[1:]
	st.first++
	if len(st.events) == 0 {
		st.events = nil
		sess.markIdle(st)
	}
	s.order.Remove(e.all)
	sess.order.Remove(e.mine)
	sess.used -= e.size
	s.used -= e.size
}

// markIdle notes that st keeps no event, and forgets the longest idle
// stream past maxIdleStreams.
func (sess *eventSession) markIdle(st *eventStream) {
	if st.idleElem != nil {
		return
	}
	st.idleElem = sess.idle.PushBack(st)
	if sess.idle.Len() <= maxIdleStreams {
		return
	}
	old := sess.idle.Remove(sess.idle.Front()).(*eventStream)
	old.idleElem = nil
	if old.id != "" {
		delete(sess.streams, old.id)
		sess.forgot = true
	}
}

// After implements mcp.EventStore: the events of the stream after index,
// or mcp.ErrEventsPurged when one of them is no longer kept.
func (s *EventStore) After(_ context.Context, sessionID, streamID string, index int) iter.Seq2[[]byte, error] {
	data, err := s.after(sessionID, streamID, index)
	return func(yield func([]byte, error) bool) {
		if err != nil {
			yield(nil, err)
			return
		}
		for _, d := range data {
			if !yield(d, nil) {
				return
			}
		}
	}
}

func (s *EventStore) after(sessionID, streamID string, index int) ([][]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var st *eventStream
	if sess := s.sessions[sessionID]; sess != nil {
		st = sess.streams[streamID]
	}
	switch {
	case st == nil || st.lost:
		return nil, fmt.Errorf("stream %q of session %q: its events are no longer kept: %w", streamID, sessionID, mcp.ErrEventsPurged)
	case index+1 < st.first:
		return nil, fmt.Errorf("stream %q of session %q: event %d is no longer kept: %w", streamID, sessionID, index+1, mcp.ErrEventsPurged)
	case index+1 > st.first+len(st.events):
		return nil, fmt.Errorf("stream %q of session %q: no event %d was sent", streamID, sessionID, index)
	}
	out := make([][]byte, 0, st.first+len(st.events)-index-1)
	for _, e := range st.events[index+1-st.first:] {
		out = append(out, e.data)
	}
	return out, nil
}

// SessionClosed implements mcp.EventStore: the session's events go.
func (s *EventStore) SessionClosed(_ context.Context, sessionID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.sessions[sessionID]
	if sess == nil {
		return nil
	}
	for el := sess.order.Front(); el != nil; el = el.Next() {
		s.order.Remove(el.Value.(*storedEvent).all)
	}
	s.used -= sess.used
	delete(s.sessions, sessionID)
	return nil
}
