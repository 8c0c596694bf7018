package pii

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
)

// Handler returns a slog.Handler that hands next each record with f's
// findings replaced (by placeholders when f has a vault) in its message
// and in every attribute: strings, errors and other values as they would
// print. The server's log goes through it under --pii, so that what the
// plugins and the host log leaves no more than the tools' results do.
func (f Filter) Handler(next slog.Handler) slog.Handler { return &logHandler{f: f, next: next} }

type logHandler struct {
	f    Filter
	next slog.Handler
}

func (h *logHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h *logHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.text(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h *logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = h.attr(a)
	}
	return &logHandler{f: h.f, next: h.next.WithAttrs(clean)}
}

func (h *logHandler) WithGroup(name string) slog.Handler {
	return &logHandler{f: h.f, next: h.next.WithGroup(name)}
}

func (h *logHandler) text(s string) string {
	out, _ := h.f.Redact(s)
	return out
}

func (h *logHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.text(v.String()))
	case slog.KindGroup:
		group := v.Group()
		clean := make([]slog.Attr, len(group))
		for i, g := range group {
			clean[i] = h.attr(g)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(clean...)}
	case slog.KindAny:
		s := fmt.Sprint(v.Any())
		if out := h.text(s); out != s {
			return slog.String(a.Key, out)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

// maxLine bounds a line the Writer holds back waiting for its end; past
// it, all but the last maxTail bytes (and any value across the cut) are
// written.
const (
	maxLine = 64 << 10
	maxTail = 4 << 10
)

// Writer returns a writer that writes to w what it is given with f's
// findings replaced, a line at a time: a line is held until its newline
// (or until it passes 64 KiB), so that a value split across two writes is
// still found. Close writes what is held. For the stderr of the upstream
// servers, which the server passes on to its own.
func (f Filter) Writer(w io.Writer) io.WriteCloser { return &lineWriter{f: f, w: w} }

type lineWriter struct {
	f   Filter
	w   io.Writer
	mu  sync.Mutex
	buf []byte
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	end := bytes.LastIndexByte(l.buf, '\n') + 1
	if end == 0 && len(l.buf) >= maxLine {
		// No line end in sight: write all but a tail, and no finding
		// that runs across the cut (it is held back whole).
		end = len(l.buf) - maxTail
		for _, x := range l.f.Find(string(l.buf)) {
			if x.Start < end && x.End > end {
				end = x.Start
			}
		}
	}
	if end > 0 {
		out, _ := l.f.Redact(string(l.buf[:end]))
		l.buf = append(l.buf[:0], l.buf[end:]...)
		if _, err := io.WriteString(l.w, out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

func (l *lineWriter) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) == 0 {
		return nil
	}
	out, _ := l.f.Redact(string(l.buf))
	l.buf = nil
	_, err := io.WriteString(l.w, out)
	return err
}
