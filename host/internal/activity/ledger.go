package activity

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// ErrUnknownPath is returned by Diff for a file no call changed this
// session.
var ErrUnknownPath = errors.New("no change recorded for this file")

// ErrOnlyHashes is returned by Diff when the ledger knows the file's hashes
// but not both contents.
var ErrOnlyHashes = errors.New("only hashes are known")

// FileEntry is what the ledger knows of one file changed this session.
type FileEntry struct {
	Path string
	// FirstBefore is the hash before the first change seen this session
	// ("" when that change created the file); LastAfter the hash after the
	// latest change ("" when it deleted the file).
	FirstBefore, LastAfter string
	Created, Deleted       bool
	// Calls is the number of calls that changed the file; Callers who made
	// them, each once, in order of first change.
	Calls   int
	Callers []Caller
	// Diffable says Diff gives a text for this file: both contents are
	// known, or the file is back to its first content.
	Diffable bool
}

// Unchanged reports whether the file is back to how it was before the
// session's first change to it.
func (e FileEntry) Unchanged() bool { return e.FirstBefore == e.LastAfter }

// preparedChange is a FileChange with its contents checked against their
// hashes: a content counts as carried only when it hashes right and is
// UTF-8 text. An absent side (created or deleted) is known to be empty.
type preparedChange struct {
	path                    string
	before, after           string
	beforeHash, afterHash   string
	beforeKnown, afterKnown bool
}

func prepare(ch sdk.FileChange) preparedChange {
	p := preparedChange{path: ch.Path, beforeHash: ch.BeforeSHA256, afterHash: ch.AfterSHA256}
	p.before, p.beforeKnown = carried(ch.Before, ch.BeforeSHA256)
	p.after, p.afterKnown = carried(ch.After, ch.AfterSHA256)
	return p
}

func carried(content []byte, hash string) (string, bool) {
	if hash == "" {
		return "", true
	}
	if !utf8.Valid(content) {
		return "", false
	}
	sum := sha256.Sum256(content)
	if !strings.EqualFold(hex.EncodeToString(sum[:]), hash) {
		return "", false
	}
	return string(content), true
}

type entry struct {
	path                    string
	firstBefore, lastAfter  string
	before, after           string // contents, when known
	beforeKnown, afterKnown bool
	evicted                 bool // contents were dropped to bound memory
	calls                   int
	lastSeq                 uint64
	callers                 []Caller
	elem                    *list.Element // in lru while it holds contents
}

func (e *entry) size() int64 { return int64(len(e.before) + len(e.after)) }

// ledger is guarded by the Log's mutex.
type ledger struct {
	max     int64
	bytes   int64
	entries map[string]*entry
	lru     *list.List // entries holding contents, least recently changed first
}

func newLedger(max int64) ledger {
	return ledger{max: max, entries: map[string]*entry{}, lru: list.New()}
}

func (l *ledger) update(ch preparedChange, caller Caller, seq uint64) {
	e := l.entries[ch.path]
	if e == nil {
		e = &entry{path: ch.path, firstBefore: ch.beforeHash,
			before: ch.before, beforeKnown: ch.beforeKnown}
		l.entries[ch.path] = e
		l.bytes += int64(len(e.before))
	}
	if e.lastSeq != seq { // one call may report the same file twice
		e.calls++
		e.lastSeq = seq
	}
	if !slices.Contains(e.callers, caller) {
		e.callers = append(e.callers, caller)
	}
	e.lastAfter = ch.afterHash
	l.bytes -= int64(len(e.after))
	e.after, e.afterKnown = "", false
	// An after content is of use only with the before one.
	if e.beforeKnown && ch.afterKnown {
		e.after, e.afterKnown = ch.after, true
		l.bytes += int64(len(e.after))
	}
	switch {
	case e.size() > 0 && e.elem == nil:
		e.elem = l.lru.PushBack(e)
	case e.size() > 0:
		l.lru.MoveToBack(e.elem)
	case e.elem != nil:
		l.lru.Remove(e.elem)
		e.elem = nil
	}
	for l.bytes > l.max && l.lru.Len() > 0 {
		l.evict(l.lru.Front().Value.(*entry))
	}
}

// evict drops an entry's contents, keeping its hashes and counts. An empty
// side (a created or deleted file) stays known.
func (l *ledger) evict(e *entry) {
	l.bytes -= e.size()
	e.before, e.after = "", ""
	e.beforeKnown, e.afterKnown = e.firstBefore == "", e.lastAfter == ""
	e.evicted = true
	l.lru.Remove(e.elem)
	e.elem = nil
}

func (e *entry) fileEntry() FileEntry {
	return FileEntry{
		Path: e.path, FirstBefore: e.firstBefore, LastAfter: e.lastAfter,
		Created: e.firstBefore == "", Deleted: e.lastAfter == "",
		Calls: e.calls, Callers: slices.Clone(e.callers),
		Diffable: e.firstBefore == e.lastAfter || e.beforeKnown && e.afterKnown,
	}
}

// Changes lists every file changed this session, sorted by path.
func (l *Log) Changes() []FileEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]FileEntry, 0, len(l.ledger.entries))
	for _, e := range l.ledger.entries {
		out = append(out, e.fileEntry())
	}
	slices.SortFunc(out, func(a, b FileEntry) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// LedgerBytes is the size of the file contents the ledger holds.
func (l *Log) LedgerBytes() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ledger.bytes
}

// Diff is the unified diff of the file at path from its content before the
// session's first change to it to its content after the latest, with
// context lines around each change (DefaultContext when negative). Its
// headers are "--- a/<path>" and "+++ b/<path>", with /dev/null for the side
// of a created or deleted file.
//
// A file that is back to its first content has no diff: Diff says so in
// one line. When a content was not carried (binary, or larger than
// sdk.MaxDiffContent) or was evicted to bound memory, the error wraps
// ErrOnlyHashes; for a file no call changed, ErrUnknownPath.
func (l *Log) Diff(path string, context int) (string, error) {
	l.mu.Lock()
	e, found := l.ledger.entries[path]
	var fe FileEntry
	var before, after string
	var evicted, ok bool
	if found {
		fe = e.fileEntry()
		before, after, evicted = e.before, e.after, e.evicted
		ok = e.beforeKnown && e.afterKnown
	}
	l.mu.Unlock()
	switch {
	case !found:
		return "", fmt.Errorf("diff %s: %w", path, ErrUnknownPath)
	case fe.Unchanged():
		return fmt.Sprintf("no changes: %s is back to its content before this session's first change to it\n", path), nil
	case !ok && evicted:
		return "", fmt.Errorf("diff %s: %w (sha256 %s -> %s): its contents were dropped to bound the ledger's memory",
			path, ErrOnlyHashes, hashOrNone(fe.FirstBefore), hashOrNone(fe.LastAfter))
	case !ok:
		return "", fmt.Errorf("diff %s: %w (sha256 %s -> %s): its contents were not carried (binary, or larger than %d bytes)",
			path, ErrOnlyHashes, hashOrNone(fe.FirstBefore), hashOrNone(fe.LastAfter), sdk.MaxDiffContent)
	}
	from, to := "a/"+strings.TrimPrefix(path, "/"), "b/"+strings.TrimPrefix(path, "/")
	if fe.Created {
		from = "/dev/null"
	}
	if fe.Deleted {
		to = "/dev/null"
	}
	d := unified(from, to, before, after, context)
	if d == "" { // same text under different hashes: cannot happen with honest hashes
		return fmt.Sprintf("no changes: %s has the same content as before\n", path), nil
	}
	return d, nil
}

func hashOrNone(h string) string {
	if h == "" {
		return "(none)"
	}
	return shortHash(h)
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
