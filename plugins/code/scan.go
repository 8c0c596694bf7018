package code

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ramabana/ramabana-mcp/plugins/internal/ignore"
	"github.com/ramabana/ramabana-mcp/plugins/internal/textenc"
	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

const (
	// maxFileSize is the largest file read whole; larger ones met while
	// walking are counted and skipped (generated bundles, data dumps).
	// search_code streams a larger file named as its path.
	maxFileSize = 2 << 20
	// binarySniff is how much of a file is checked for a NUL byte.
	binarySniff = 8 << 10
)

// fileJob is one file to process; idx is its place in walk order.
type fileJob struct {
	idx int
	// t is the file to read (a symlink's target when it was one).
	t *roots.Target
	// shown is the path to print.
	shown string
	// named is true for a file named as the path to scan, rather than
	// met while walking a directory.
	named bool
}

// walkSpec says which files a scan visits.
type walkSpec struct {
	r *roots.Roots
	// t is the resolved directory or file to scan.
	t *roots.Target
	// opts holds the walk's budget.
	opts ignore.Options
	// glob filters files by their path relative to abs; a glob without '/'
	// also matches base names.
	glob string
	// accept filters by base name; nil accepts every file.
	accept func(name string) bool
}

// walk sends every file the spec selects to yield, in lexical order, until
// yield returns false. Ignored files (.gitignore, .git/info/exclude) and
// .git are left out; symlinks to regular files inside the served folders
// are followed, every other symlink is not. Everything is read through the
// served folder's root (see roots.Target), so a directory swapped for a
// symlink mid-walk leads nowhere. A walk past its budget ends with an
// *ignore.LimitError after yielding what it found.
func (w walkSpec) walk(ctx context.Context, yield func(fileJob) bool) error {
	shownDir := display(w.r, w.t.Abs)
	fi, err := w.t.Stat()
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		if fi.Mode().IsRegular() {
			yield(fileJob{t: w.t, shown: shownDir, named: true})
		}
		return nil
	}
	fsys, name, closeFS, err := w.t.FS()
	if err != nil {
		return err
	}
	defer closeFS()
	opts := w.opts
	opts.Skip = roots.PseudoDirs(w.t.Abs)
	baseNames := w.glob != "" && !strings.Contains(w.glob, "/")
	idx, seen := 0, 0
	err = ignore.Walk(fsys, name, opts, func(rel string, d fs.DirEntry) error {
		if seen++; seen%512 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		typ := d.Type()
		if typ.IsDir() {
			return nil
		}
		name := d.Name()
		if w.accept != nil && !w.accept(name) {
			return nil
		}
		if w.glob != "" && !doublestar.MatchUnvalidated(w.glob, rel) &&
			(!baseNames || !doublestar.MatchUnvalidated(w.glob, path.Base(rel))) {
			return nil
		}
		t := w.t.Join(rel)
		switch {
		case typ.IsRegular():
		case typ&fs.ModeSymlink != 0:
			real, ok := w.linkTarget(t.Abs)
			if !ok {
				return nil
			}
			t = real
		default: // devices, sockets, pipes: opening a pipe would block
			return nil
		}
		if !yield(fileJob{idx: idx, t: t, shown: joinDisplay(shownDir, rel)}) {
			return filepath.SkipAll
		}
		idx++
		return nil
	})
	return err
}

// linkTarget follows a symlink found in the walk: only to a regular file
// inside a served folder, whatever --read-outside says.
func (w walkSpec) linkTarget(abs string) (*roots.Target, bool) {
	t, err := w.r.Read(abs)
	if err != nil || !t.Inside() {
		return nil, false
	}
	fi, err := t.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	return t, true
}

// noLimit is the scan limit before a collector sets one.
const noLimit = math.MaxInt

// scanStats says how a scan ended.
type scanStats struct {
	// cut is true when files past the collector's limit were left unread.
	cut bool
	// stopped is set when the walk's budget ran out.
	stopped *ignore.LimitError
}

// scanOrdered runs work on every file the spec selects, on runtime.NumCPU
// workers, and hands each result to collect in walk order. collect returns
// the index of the last file it needs (noLimit for all); files past it are
// neither walked further nor read, so a capped scan stops early while its
// output stays that of a sequential scan. The worker state passed to work
// is owned by one goroutine at a time.
func scanOrdered[R any](ctx context.Context, spec walkSpec, newState func() *workerState,
	work func(ctx context.Context, st *workerState, job fileJob) R,
	collect func(job fileJob, res R) int) (scanStats, error) {
	// The walk runs on ctx, the workers on workCtx, which ends once every
	// file up to the limit is collected. The walk goes on until it meets a
	// file past the limit or the end, so whether files were cut is the same
	// on every run.
	workCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var limit atomic.Int64
	limit.Store(noLimit)
	var maxIdx atomic.Int64
	maxIdx.Store(-1)

	type result struct {
		job fileJob
		res R
	}
	jobs := make(chan fileJob, 256)
	results := make(chan result, 256)

	var walkErr error
	walkDone := make(chan struct{})
	go func() {
		defer close(walkDone)
		defer close(jobs)
		walkErr = spec.walk(ctx, func(job fileJob) bool {
			maxIdx.Store(int64(job.idx))
			if int64(job.idx) > limit.Load() {
				return false
			}
			select {
			case jobs <- job:
				return true
			case <-ctx.Done():
				return false
			}
		})
	}()

	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := newState()
			defer st.close()
			// Drain jobs to the end, so that the walk never blocks.
			for job := range jobs {
				if int64(job.idx) > limit.Load() || workCtx.Err() != nil {
					continue
				}
				res := work(workCtx, st, job)
				select {
				case results <- result{job, res}:
				case <-workCtx.Done():
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()

	pending := map[int]result{}
	next, done := 0, false
	for res := range results {
		if done || int64(res.job.idx) > limit.Load() {
			continue
		}
		pending[res.job.idx] = res
		for {
			p, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			if last := collect(p.job, p.res); int64(last) < limit.Load() {
				limit.Store(int64(last))
			}
			next++
			if int64(next) > limit.Load() {
				// Everything needed is in: stop the workers.
				done = true
				cancel()
				break
			}
		}
	}
	<-walkDone
	if err := ctx.Err(); err != nil {
		return scanStats{}, err
	}
	var stopped *ignore.LimitError
	if errors.As(walkErr, &stopped) {
		walkErr = nil
	}
	if walkErr != nil {
		return scanStats{}, walkErr
	}
	return scanStats{cut: maxIdx.Load() > limit.Load(), stopped: stopped}, nil
}

// workerState is what one worker reuses from file to file.
type workerState struct {
	buf    []byte
	folded []byte
	// parsers are per language, made on first use.
	parsers map[*language]*parser
}

func newWorkerState() *workerState { return &workerState{} }

func (st *workerState) close() {
	for _, p := range st.parsers {
		p.close()
	}
}

// readStatus says why a file was not read.
type readStatus uint8

const (
	readOK readStatus = iota
	readBinary
	readLarge
	readFailed
)

// readFile reads a regular file into the worker's buffer, which the next
// read reuses, and returns its text as decode does. Files over maxFileSize
// and binary files are refused. The walk has checked that the file is
// regular.
func (st *workerState) readFile(t *roots.Target) ([]byte, readStatus) {
	if cap(st.buf) == 0 {
		st.buf = make([]byte, 0, 64<<10)
	}
	buf, err := readAll(t, st.buf[:0], maxFileSize)
	if cap(buf) <= 4*maxFileSize {
		st.buf = buf[:0]
	}
	switch {
	case errors.Is(err, errTooLarge):
		return nil, readLarge
	case err != nil:
		return nil, readFailed
	}
	return decode(buf)
}

// decode returns buf, a file's whole content, as the tools search and
// parse it: UTF-8 as it is, without a byte order mark; UTF-16 (with its
// mark), windows-1252 and ISO-8859-1 text (see package textenc) converted
// to UTF-8, with the same lines. Content with a NUL byte in its first
// 8 KiB is binary, unless it is UTF-16; other content is taken as it is,
// as UTF-8. Only the first 8 KiB is looked at unless they are not UTF-8,
// so a file that is UTF-8 costs next to nothing.
func decode(buf []byte) ([]byte, readStatus) {
	sniff := buf[:min(len(buf), textenc.SniffLen)]
	enc, err := textenc.Sniff(sniff, len(buf) > len(sniff))
	if err == nil && enc.Converted() {
		enc, err = textenc.Detect(buf) // the whole content decides
	}
	switch {
	case err == nil && enc.Converted():
		text, err := enc.Decode(buf)
		if err != nil {
			return nil, readFailed
		}
		return text, readOK
	case err == nil && enc == textenc.UTF8BOM:
		return buf[len(enc.BOM()):], readOK
	case isBinary(buf):
		return nil, readBinary
	}
	return buf, readOK
}

// errTooLarge is readAll's error for a file over its limit.
var errTooLarge = errors.New("file too large")

func isBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), binarySniff)], 0) >= 0
}

// skipCounts tallies the files a scan did not read.
type skipCounts struct {
	binary, large, failed int
}

func (c *skipCounts) add(s readStatus) {
	switch s {
	case readBinary:
		c.binary++
	case readLarge:
		c.large++
	case readFailed:
		c.failed++
	}
}

// String is a clause for a totals line, "" when nothing was skipped.
func (c skipCounts) String() string {
	var parts []string
	if c.binary > 0 {
		parts = append(parts, wording.CountOf(c.binary, "binary file", "binary files"))
	}
	if c.large > 0 {
		parts = append(parts, wording.CountOf(c.large, "file", "files")+" over 2 MiB")
	}
	if c.failed > 0 {
		parts = append(parts, wording.CountOf(c.failed, "unreadable file", "unreadable files"))
	}
	if len(parts) == 0 {
		return ""
	}
	return "skipped " + strings.Join(parts, ", ")
}

// scanTally counts, for a totals line, what a scan capped at a number of
// hits (matches, symbols) read, showed and left out. Its collector feeds
// it every file in walk order.
type scanTally struct {
	skips skipCounts
	// read counts the files read; shown the hits shown.
	read, shown int
	// left counts the hits not shown, in leftFiles files.
	left, leftFiles int
	// capped is set by the collector once it shows no more; later files
	// are only counted.
	capped bool
	// unsearched is true when files past the cap were not read at all
	// (scanStats.cut).
	unsearched bool
}

// take counts one file with total hits, of which avail are at hand to
// show, and returns how many of those to show within limit: 0 for a file
// not read, without hits, or past the cap.
func (t *scanTally) take(status readStatus, total, avail, limit int) int {
	if status != readOK {
		t.skips.add(status)
		return 0
	}
	t.read++
	if total == 0 {
		return 0
	}
	if t.capped {
		t.left += total
		t.leftFiles++
		return 0
	}
	k := min(avail, limit-t.shown)
	t.shown += k
	if total > k {
		t.left += total - k
		t.leftFiles++
	}
	return k
}

// giveBack moves n of the hits take just counted as shown to those left
// out, for a collector that showed fewer; counted says take already
// counted the file among leftFiles.
func (t *scanTally) giveBack(n int, counted bool) {
	t.shown -= n
	t.left += n
	if !counted {
		t.leftFiles++
	}
}

// scanError is a handler's error for a scan of root that failed: the
// call's own end when ctx is done, else a failure naming root.
func scanError(ctx context.Context, root string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return sdk.Failf("cannot search %s: %v", root, unwrapPath(err))
}

// defaultBudget is the walk budget of the tools that take no budget
// arguments (find_symbol, outline).
func defaultBudget() ignore.Options {
	var opts ignore.Options
	_ = ignore.Budget(&opts, 0, 0)
	return opts
}
