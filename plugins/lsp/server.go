package lsp

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	lspc "github.com/ramabana/ramabana-mcp/internal/lsp"
	"github.com/ramabana/ramabana-mcp/internal/sandbox"
	"github.com/ramabana/ramabana-mcp/plugins/internal/ignore"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// loadTimeout bounds the wait for a server to load its workspace; past it,
// calls are answered from what it has loaded, and say so.
const loadTimeout = 2 * time.Minute

// Scan budget: a workspace with more entries is not scanned for changes
// past them (see server.refresh).
const (
	maxScanEntries = 200_000
	maxScanTime    = 3 * time.Second
)

// maxOpenDocs bounds the documents kept open per server.
const maxOpenDocs = 64

// pool holds the running servers, one per served folder and language.
type pool struct {
	mu      sync.Mutex
	servers map[string]*server
}

// get returns the server of lang for the served folder root, made (not
// started) on first use.
func (p *pool) get(lang *language, root string) *server {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := lang.name + "\x00" + root
	if s, ok := p.servers[key]; ok {
		return s
	}
	if p.servers == nil {
		p.servers = map[string]*server{}
	}
	s := &server{lang: lang, root: root}
	p.servers[key] = s
	return s
}

// closeAll stops every server (at the plugin's exit).
func (p *pool) closeAll() {
	p.mu.Lock()
	servers := p.servers
	p.servers = nil
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(s.stop)
	}
	wg.Wait()
}

// server is one language server process for one served folder: started
// at its first call, kept warm, started again after it ends, stopped when
// idle.
type server struct {
	lang *language
	root string

	mu     sync.Mutex
	client *lspc.Client
	// exited is why the last process ended without being stopped, said
	// once by the next call.
	exited error
	// loaded is closed once the server has loaded its workspace.
	loaded   chan struct{}
	loadOnce *sync.Once
	// landlock is the Landlock ABI the process runs under (0: none).
	landlock     int
	saidLandlock bool // the lack of Landlock was said, since the start
	busy         int

	// lmu guards listeners apart from mu: progress is relayed while a
	// call holds mu (starting the server, say).
	lmu       sync.Mutex
	listeners map[*listener]struct{}
	idleTimer *time.Timer
	// docs are the documents open in the server, by absolute path.
	docs map[string]*openDoc
	// stamps are the files the server was last told of (or found at the
	// start), by absolute path; nil until the first scan.
	stamps map[string]stamp
	// docOrder is docs' paths, least recently used first.
	docOrder []string
}

// openDoc is what the server was sent of an open document.
type openDoc struct {
	text *lspc.Text
	sum  [32]byte
}

// stamp is a file's size and modification time.
type stamp struct {
	size  int64
	mtime time.Time
}

// listener is a call waiting on the server, which its progress reaches.
type listener struct{ events sdk.Events }

// session is a call's hold on a running server.
type session struct {
	s      *server
	c      *lspc.Client
	l      *listener
	notes  []string // said in the result: a restart, a partial load
	closed bool
}

// acquire starts the server if it is not running (again, after a crash)
// and holds it for one call until release: an idle server is stopped only
// when no call holds it.
func (s *server) acquire(ctx context.Context, host sdk.Host, env, rootDirs []string, cacheDir string, events sdk.Events) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.idleTimer != nil {
		s.idleTimer.Stop() // false: its func may yet run, and finds idleTimer changed
		s.idleTimer = nil
	}
	l := &listener{events: events}
	ss := &session{s: s, l: l}
	if s.client != nil {
		select {
		case <-s.client.Done():
			// Ended without Close: said by this call (the watcher below
			// may not have run yet).
			if err := s.client.Err(); err != nil && !errors.Is(err, lspc.ErrClosed) {
				s.exited = err
			}
			s.resetLocked()
		default:
		}
	}
	if s.exited != nil {
		ss.notes = append(ss.notes, fmt.Sprintf("the %s language server had ended (%v) and was started again", s.lang.title, s.exited))
		s.exited = nil
	}
	if s.client == nil {
		cfg, err := loadConfig(host.ConfigDir)
		if err != nil {
			return nil, err
		}
		ln, err := prepare(s.lang, cfg, host, env, rootDirs, cacheDir)
		if err != nil {
			return nil, err
		}
		events.Progress(0, 0, "starting "+filepath.Base(ln.command[len(ln.command)-min(len(ln.command), 2)])+" for "+s.lang.title)
		if err := s.startLocked(ctx, ln); err != nil {
			return nil, err
		}
	}
	if guarded := !host.Commands; guarded && s.landlock == 0 && !s.saidLandlock {
		s.saidLandlock = true
		ss.notes = append(ss.notes, "this system offers no Landlock, so the language server's sandbox cannot restrict what it executes or writes")
	}
	s.lmu.Lock()
	if s.listeners == nil {
		s.listeners = map[*listener]struct{}{}
	}
	s.listeners[l] = struct{}{}
	s.lmu.Unlock()
	s.busy++
	ss.c = s.client
	return ss, nil
}

// release ends a call's hold; the last one starts the idle timer.
func (ss *session) release(idle time.Duration) {
	if ss.closed {
		return
	}
	ss.closed = true
	s := ss.s
	s.lmu.Lock()
	delete(s.listeners, ss.l)
	s.lmu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy--
	if s.busy > 0 || idle <= 0 || s.client != ss.c {
		return
	}
	c := ss.c
	var t *time.Timer
	t = time.AfterFunc(idle, func() {
		s.mu.Lock()
		if s.idleTimer != t || s.busy > 0 || s.client != c {
			s.mu.Unlock()
			return
		}
		s.resetLocked()
		s.mu.Unlock()
		_ = c.Close(context.Background())
	})
	s.idleTimer = t
}

// stop ends the server, if running.
func (s *server) stop() {
	s.mu.Lock()
	c := s.client
	s.resetLocked()
	s.mu.Unlock()
	if c != nil {
		_ = c.Close(context.Background())
	}
}

// resetLocked forgets the running process and what it was told.
func (s *server) resetLocked() {
	if s.idleTimer != nil {
		s.idleTimer.Stop()
		s.idleTimer = nil
	}
	s.client, s.docs, s.stamps, s.docOrder = nil, nil, nil, nil
}

var pyrightLoaded = regexp.MustCompile(`^(Found \d+ source files?|No source files found|No include entries specified)`)

// startLocked starts the process and initializes it.
func (s *server) startLocked(ctx context.Context, ln *launch) error {
	loaded := make(chan struct{})
	once := &sync.Once{}
	markLoaded := func() { once.Do(func() { close(loaded) }) }
	if !s.lang.waitsForLoad {
		markLoaded()
	}
	policy := ln.policy
	landlock := 0
	lc := lspc.Config{
		Command: ln.command,
		Env:     ln.env,
		Dir:     s.root,
		Start: func(cmd *exec.Cmd) error {
			applied, err := sandbox.Start(cmd, policy)
			landlock = applied.Landlock
			return err
		},
		Folders:         []string{s.root},
		ProcessID:       -1, // in a pid namespace of its own
		PullDiagnostics: true,
		OnProgress: func(p lspc.Progress) {
			s.relay(p)
			if s.lang == typescript && p.Kind == "end" && strings.HasPrefix(p.Title, "Initializing JS/TS language features") {
				markLoaded()
			}
		},
		OnMessage: func(_ int, text string) {
			if s.lang == python && pyrightLoaded.MatchString(text) {
				markLoaded()
			}
		},
	}
	switch s.lang {
	case golang:
		// Diagnostics on request, computed on what was sent before.
		lc.InitializationOptions = map[string]any{"pullDiagnostics": true}
	case typescript:
		opts := map[string]any{
			"disableAutomaticTypingAcquisition": true, // it runs npm
			"preferences":                       map[string]any{"providePrefixAndSuffixTextForRename": false},
			"plugins":                           []any{},
		}
		if ln.tsserver != "" {
			opts["tsserver"] = map[string]any{"path": ln.tsserver}
		}
		lc.InitializationOptions = opts
	case python:
		if ln.python != "" {
			python := ln.python
			lc.Settings = func(section, _ string) any {
				if section == "python" {
					return map[string]any{"pythonPath": python}
				}
				return nil
			}
		}
	}
	c, err := lspc.Start(ctx, lc)
	if err != nil {
		return fmt.Errorf("start the %s language server %s: %w", s.lang.title, ln.command[0], err)
	}
	s.client, s.loaded, s.loadOnce, s.landlock, s.saidLandlock = c, loaded, once, landlock, false
	if ln.policy.Executable == nil && ln.policy.Writable == nil {
		s.landlock = -1 // nothing asked of Landlock: nothing to say
	}
	s.docs, s.stamps = map[string]*openDoc{}, nil
	go func() {
		<-c.Done()
		s.mu.Lock()
		if s.client == c {
			if err := c.Err(); err != nil && !errors.Is(err, lspc.ErrClosed) {
				s.exited = err
			}
			s.resetLocked()
		}
		s.mu.Unlock()
	}()
	return nil
}

// relay passes a server's progress to the calls waiting on it.
func (s *server) relay(p lspc.Progress) {
	msg := p.Title
	if p.Message != "" {
		msg += ": " + p.Message
	}
	s.lmu.Lock()
	defer s.lmu.Unlock()
	for l := range s.listeners {
		if p.Percentage != nil {
			l.events.Progress(float64(*p.Percentage), 100, msg)
		} else {
			l.events.Progress(0, 0, msg)
		}
	}
}

// awaitLoaded waits until the server has loaded its workspace, for the
// calls that need the whole of it (references, rename); past loadTimeout
// the answer is what the server has, with a note.
func (ss *session) awaitLoaded(ctx context.Context) error {
	s := ss.s
	s.mu.Lock()
	loaded, once := s.loaded, s.loadOnce
	markLoaded := func() { once.Do(func() { close(loaded) }) }
	if s.lang == typescript && s.stamps != nil && !hasProjectFile(s.stamps) {
		// tsserver reports loading configured projects only: without a
		// tsconfig.json or jsconfig.json, what is open is the project.
		markLoaded()
	}
	s.mu.Unlock()
	t := time.NewTimer(loadTimeout)
	defer t.Stop()
	select {
	case <-loaded:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-ss.c.Done():
		return ss.c.Err()
	case <-t.C:
		// Said once; the calls after this one do not wait again.
		markLoaded()
		ss.notes = append(ss.notes, fmt.Sprintf("the %s language server had not finished loading the workspace after %v: this answer may be incomplete", s.lang.title, loadTimeout))
		return nil
	}
}

// hasProjectFile says the scan found a tsconfig.json or jsconfig.json.
func hasProjectFile(stamps map[string]stamp) bool {
	for p := range stamps {
		if b := filepath.Base(p); b == "tsconfig.json" || b == "jsconfig.json" {
			return true
		}
	}
	return false
}

// gone is the error of a call whose client the server no longer runs:
// why that client ended (an *lspc.ExitError when its process ended, which
// the tool wrapper retries once), or ErrClosed while stop is closing it.
// The watcher in startLocked and acquire forget a client only once it is
// done, so its Err is set; stop forgets it before Close.
func (ss *session) gone() error {
	if err := ss.c.Err(); err != nil {
		return err
	}
	return lspc.ErrClosed
}

// open makes sure the server has the document abs open with data, its
// content as just read, and returns it.
func (ss *session) open(abs string, data []byte) (*lspc.Text, error) {
	s := ss.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client != ss.c {
		return nil, ss.gone()
	}
	sum := sha256.Sum256(data)
	uri := lspc.URIFromPath(abs)
	if d, ok := s.docs[abs]; ok {
		s.touchLocked(abs)
		if d.sum == sum {
			return d.text, nil
		}
		if _, err := ss.c.DidChange(uri, data); err != nil {
			return nil, err
		}
		d.text, d.sum = lspc.NewText(data), sum
		return d.text, nil
	}
	if len(s.docs) >= maxOpenDocs {
		oldest := s.docOrder[0]
		s.docOrder = s.docOrder[1:]
		delete(s.docs, oldest)
		_ = ss.c.DidClose(lspc.URIFromPath(oldest))
	}
	if err := ss.c.DidOpen(uri, s.lang.languageID(abs), data); err != nil {
		return nil, err
	}
	d := &openDoc{text: lspc.NewText(data), sum: sum}
	s.docs[abs] = d
	s.docOrder = append(s.docOrder, abs)
	return d.text, nil
}

func (s *server) touchLocked(abs string) {
	for i, p := range s.docOrder {
		if p == abs {
			s.docOrder = append(append(s.docOrder[:i:i], s.docOrder[i+1:]...), abs)
			return
		}
	}
}

// sent is the content the server has of path: the open document's, or
// nil when it is not open (the server reads the disk).
func (ss *session) sent(abs string) *lspc.Text {
	s := ss.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.docs[abs]; ok {
		return d.text
	}
	return nil
}

// snapshot is what the server has been sent at one moment: the open
// documents' texts and versions, and the stamps of the files it was told
// of, by path.
type snapshot struct {
	docs     map[string][]byte
	versions map[string]int32
	stamps   map[string]stamp
}

// snapshot takes what the server has now, before a request whose answer
// is checked against it.
func (ss *session) snapshot() *snapshot {
	s := ss.s
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := &snapshot{docs: map[string][]byte{}, versions: map[string]int32{}, stamps: maps.Clone(s.stamps)}
	for p, d := range s.docs {
		snap.docs[p] = d.text.Content()
		if v, ok := ss.c.Version(lspc.URIFromPath(p)); ok {
			snap.versions[p] = v
		}
	}
	return snap
}

// refresh tells the server of the files of its language (and their build
// files) that were created, changed or deleted on disk since it last
// looked, by whatever program: servers such as gopls keep what they read
// of files that are not open until told. Open documents changed on disk
// are closed, so the server reads them anew. The first refresh only
// records what is there. A workspace past the scan budget is scanned up
// to it.
func (ss *session) refresh() error {
	s := ss.s
	now := map[string]stamp{}
	err := ignore.Walk(os.DirFS(s.root), ".", ignore.Options{MaxEntries: maxScanEntries, Timeout: maxScanTime}, func(rel string, d fs.DirEntry) error {
		if d.IsDir() || !d.Type().IsRegular() || !s.lang.covers(rel) {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		now[filepath.Join(s.root, filepath.FromSlash(rel))] = stamp{fi.Size(), fi.ModTime()}
		return nil
	})
	var limit *ignore.LimitError
	if err != nil && !errors.As(err, &limit) {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client != ss.c {
		return ss.gone()
	}
	if s.stamps == nil {
		s.stamps = now
		return nil
	}
	var events []lspc.FileEvent
	for p, st := range now {
		old, ok := s.stamps[p]
		switch {
		case !ok:
			events = append(events, lspc.FileEvent{URI: lspc.URIFromPath(p), Type: lspc.FileCreated})
		case old != st:
			events = append(events, lspc.FileEvent{URI: lspc.URIFromPath(p), Type: lspc.FileChanged})
		}
	}
	if limit == nil {
		for p := range s.stamps {
			if _, ok := now[p]; !ok {
				events = append(events, lspc.FileEvent{URI: lspc.URIFromPath(p), Type: lspc.FileDeleted})
			}
		}
	}
	for _, e := range events {
		p, _ := lspc.PathFromURI(e.URI)
		if _, open := s.docs[p]; open {
			delete(s.docs, p)
			s.docOrder = removeString(s.docOrder, p)
			_ = ss.c.DidClose(e.URI)
		}
	}
	if limit != nil {
		// A scan cut short saw part of the folder: what it did not reach
		// keeps its stamp, and no deletion is told.
		for p, st := range s.stamps {
			if _, ok := now[p]; !ok {
				now[p] = st
			}
		}
	}
	s.stamps = now
	if len(events) == 0 {
		return nil
	}
	return ss.c.DidChangeWatchedFiles(events...)
}

// wrote tells the server of files this group changed, with their new
// content: open documents get it, the others a change event.
func (ss *session) wrote(files map[string][]byte) {
	s := ss.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client != ss.c {
		return
	}
	var events []lspc.FileEvent
	for abs, data := range files {
		if fi, err := os.Stat(abs); err == nil && s.stamps != nil {
			s.stamps[abs] = stamp{fi.Size(), fi.ModTime()}
		}
		uri := lspc.URIFromPath(abs)
		if d, ok := s.docs[abs]; ok {
			if _, err := ss.c.DidChange(uri, data); err == nil {
				d.text, d.sum = lspc.NewText(data), sha256.Sum256(data)
				continue
			}
		}
		events = append(events, lspc.FileEvent{URI: uri, Type: lspc.FileChanged})
	}
	if len(events) > 0 {
		_ = ss.c.DidChangeWatchedFiles(events...)
	}
}

func removeString(list []string, s string) []string {
	for i, p := range list {
		if p == s {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	return list
}
