package activity

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// Defaults for Options.
const (
	DefaultMaxRecords     = 1000
	DefaultMaxLedgerBytes = 32 << 20
)

// MaxMessage caps Record.Message, in characters.
const MaxMessage = 200

// Options bound a Log's memory. Zero values take the defaults.
type Options struct {
	// MaxRecords is how many calls the feed keeps; older ones roll off.
	// Default 1000.
	MaxRecords int
	// MaxLedgerBytes bounds the file contents the ledger keeps for diffs.
	// Default 32 MiB.
	MaxLedgerBytes int64
}

// Record is one finished call, or one event of the server's (Event).
type Record struct {
	// Seq numbers records in the order the calls finished, from 1.
	Seq uint64
	// Event is "" for a call that went well or failed in its tool, and
	// names what else happened: EventUpstreamError (a call an upstream MCP
	// server did not answer), EventUpstreamRegister (an upstream server's
	// tools entered the catalog; not a call).
	Event string
	// Time is when the call started.
	Time time.Time
	// CallID is the host's id of the call (sdk.Call.ID), which its log
	// lines carry too; "" for a call recorded without one.
	CallID      string
	Tool, Group string
	Caller      Caller
	// Args is the arguments summary (see SummarizeArgs).
	Args    string
	Outcome Outcome
	// Message is the first line of the error (a tool error's text or the Go
	// error), capped at MaxMessage characters; "" when the call succeeded.
	Message  string
	Duration time.Duration
	// Changes are the files the call reported changing.
	Changes []Change
}

// Change is one file a call changed. Created and Deleted follow from the
// empty hash of the other side.
type Change struct {
	Path                      string
	BeforeSHA256, AfterSHA256 string
	Created, Deleted          bool
}

// Events of a Record.
const (
	// EventUpstreamError is a call an upstream MCP server failed to answer:
	// a JSON-RPC error, a transport error, a timeout.
	EventUpstreamError = "upstream_error"
	// EventUpstreamRegister is an upstream server connected and its tools
	// registered; Message says how (transport, tool count, instructions).
	EventUpstreamRegister = "upstream_register"
	// EventUpstreamHeld is an upstream server's tool held back: its
	// definition changed since it was pinned; Message says how.
	EventUpstreamHeld = "upstream_held"
)

// Filter selects records; zero fields match everything.
type Filter struct {
	Tool, Group string
	// Event matches Record.Event exactly; "call" matches the records
	// without one.
	Event string
	// Caller matches exactly, except "agent", which matches every agent turn.
	Caller Caller
	// Since keeps records with Seq > Since, for polling.
	Since uint64
}

func (f Filter) match(r *Record) bool {
	switch {
	case f.Tool != "" && r.Tool != f.Tool,
		f.Group != "" && r.Group != f.Group,
		f.Event == "call" && r.Event != "",
		f.Event != "" && f.Event != "call" && r.Event != f.Event,
		r.Seq <= f.Since:
		return false
	case f.Caller == "agent":
		return r.Caller.IsAgent()
	case f.Caller != "":
		return r.Caller == f.Caller
	}
	return true
}

// Log is a session's activity feed and changes ledger. It is safe for
// concurrent use.
type Log struct {
	opts Options
	// parent is the server's log, for a session's (Session): every
	// record and change goes there too.
	parent *Log

	mu   sync.Mutex
	max  int
	ring []Record // ring[(head+i)%max] for i < n, oldest first
	head int
	n    int
	seq  uint64

	ledger ledger
}

// New returns an empty Log.
func New(opts Options) *Log {
	if opts.MaxRecords <= 0 {
		opts.MaxRecords = DefaultMaxRecords
	}
	if opts.MaxLedgerBytes <= 0 {
		opts.MaxLedgerBytes = DefaultMaxLedgerBytes
	}
	return &Log{
		opts:   opts,
		max:    opts.MaxRecords,
		ledger: newLedger(opts.MaxLedgerBytes),
	}
}

// Pending is a call that has started. Finish records it.
type Pending struct {
	log         *Log
	start       time.Time
	callID      string
	tool, group string
	caller      Caller
	args        string
	done        atomic.Bool
}

// Start notes the start of a call. The arguments are summarized now, so
// the caller may reuse args afterwards.
func (l *Log) Start(tool, group string, caller Caller, args json.RawMessage) *Pending {
	return l.StartCall("", tool, group, caller, args)
}

// StartCall is Start for a call the host knows by id: the record carries
// it as CallID.
func (l *Log) StartCall(callID, tool, group string, caller Caller, args json.RawMessage) *Pending {
	return &Pending{
		log: l, start: time.Now(), callID: callID,
		tool: tool, group: group, caller: caller,
		args: SummarizeArgs(args, DefaultSummaryLen),
	}
}

// Finish records the call's end with what the source returned: res with
// IsError is a tool error, a non-nil err failed (or was cancelled, when it
// wraps context.Canceled), and the files in res.Changes go to the changes
// ledger. Only the first Finish of a Pending counts; later ones do nothing.
// A nil Pending is allowed and does nothing.
func (p *Pending) Finish(res *sdk.Result, err error) { p.FinishEvent("", res, err) }

// FinishEvent is Finish for a call that was also an event, such as
// EventUpstreamError.
func (p *Pending) FinishEvent(event string, res *sdk.Result, err error) {
	if p == nil || !p.done.CompareAndSwap(false, true) {
		return
	}
	rec := Record{
		Time: p.start, CallID: p.callID, Tool: p.tool, Group: p.group, Caller: p.caller,
		Args: p.args, Duration: time.Since(p.start), Event: event,
	}
	switch {
	case err != nil && errors.Is(err, context.Canceled):
		rec.Outcome, rec.Message = Cancelled, firstLine(err.Error())
	case err != nil:
		rec.Outcome, rec.Message = Failed, firstLine(err.Error())
	case res == nil:
		rec.Outcome, rec.Message = Failed, "no result"
	case res.IsError:
		rec.Outcome, rec.Message = ToolError, firstLine(res.Text())
	default:
		rec.Outcome = OK
	}
	var changes []preparedChange
	if res != nil && len(res.Changes) > 0 {
		rec.Changes = make([]Change, len(res.Changes))
		changes = make([]preparedChange, len(res.Changes))
		for i, ch := range res.Changes {
			rec.Changes[i] = Change{
				Path: ch.Path, BeforeSHA256: ch.BeforeSHA256, AfterSHA256: ch.AfterSHA256,
				Created: ch.BeforeSHA256 == "", Deleted: ch.AfterSHA256 == "",
			}
			changes[i] = prepare(ch) // hashing outside the lock
		}
	}
	p.log.add(&rec, changes)
}

// Note records an event that is not a call, such as
// EventUpstreamRegister: group is what it concerns, message what happened.
func (l *Log) Note(event, group string, caller Caller, message string) {
	l.add(&Record{Time: time.Now(), Event: event, Group: group, Caller: caller, Outcome: OK, Message: cutRunes(strings.TrimSpace(message), MaxMessage)}, nil)
}

// Session returns a log of one client session's own, with l's bounds: its
// feed and ledger hold what that session did (its client's calls and its
// ask turns), and every record and change goes to l too, the whole
// server's. Its Recent also holds l's records of the server's own
// (caller Server: upstream servers registering), which concern every
// session.
func (l *Log) Session() *Log {
	s := New(l.opts)
	s.parent = l
	return s
}

func (l *Log) add(rec *Record, changes []preparedChange) {
	if l.parent != nil {
		r := *rec
		l.parent.add(&r, changes)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	rec.Seq = l.seq
	if l.ring == nil {
		l.ring = make([]Record, 0, min(l.max, 64))
	}
	if l.n < l.max {
		l.ring = append(l.ring, *rec)
		l.n++
	} else { // full: overwrite the oldest
		l.ring[l.head] = *rec
		l.head = (l.head + 1) % l.max
	}
	for _, ch := range changes {
		l.ledger.update(ch, rec.Caller, rec.Seq)
	}
}

// Recent returns up to n records that match the filter, newest first; all
// of them when n <= 0. A session's log (Session) merges in, by time, the
// server's own records (caller Server) of its parent, unless filter.Since
// is set (Seq numbers are each log's own).
func (l *Log) Recent(n int, filter Filter) []Record {
	own := l.recent(n, filter)
	if l.parent == nil || filter.Since > 0 || (filter.Caller != "" && filter.Caller != Server) {
		return own
	}
	server := filter
	server.Caller = Server
	out := append(own, l.parent.recent(n, server)...)
	slices.SortStableFunc(out, func(a, b Record) int { return b.Time.Compare(a.Time) })
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

func (l *Log) recent(n int, filter Filter) []Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Record
	for i := l.n - 1; i >= 0; i-- {
		r := &l.ring[(l.head+i)%l.max]
		if r.Seq <= filter.Since {
			break // older records have smaller Seq
		}
		if filter.match(r) {
			out = append(out, *r)
			if n > 0 && len(out) == n {
				break
			}
		}
	}
	return out
}

// Len is the number of records the feed holds.
func (l *Log) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// firstLine is the first non-empty line of s, trimmed and capped.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return cutRunes(s, MaxMessage)
}
