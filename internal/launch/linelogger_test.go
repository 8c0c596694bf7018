package launch

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// cutBeforeValue is a cut such as the server's (pii.Prefix): never
// through the planted address.
func cutBeforeValue(s string, n int) string {
	if i := strings.Index(s, "mallory"); i >= 0 && i < n {
		return s[:i]
	}
	return s[:n]
}

// TestLineLoggerWholeLines: a plugin's output reaches the log in whole
// lines, however go-plugin chunks it, so that the log's filter sees each
// value in one piece; a line too long to hold is logged in parts cut by
// Options.Cut.
func TestLineLoggerWholeLines(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := &lineLogger{logger: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == slog.LevelKey || a.Key == slog.MessageKey {
				return slog.Attr{}
			}
			return a
		}})), plugin: "p", msg: "plugin output", cut: cutBeforeValue}
	for _, chunk := range []string{"owner mallory.owner@evil-", "corp.net card 5555 5555", " 5555 4444\r\n", "second\n\nthird"} {
		if _, err := l.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	long := strings.Repeat("x", maxLoggedLine-10) + " mallory.owner@evil-corp.net and more"
	if _, err := l.Write([]byte(long)); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		got = append(got, strings.TrimPrefix(line, "plugin=p line="))
	}
	want := []string{
		`"owner mallory.owner@evil-corp.net card 5555 5555 5555 4444"`,
		"second",
		// Cut before the address, not in it.
		`"third` + strings.Repeat("x", maxLoggedLine-10) + ` "`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("logged lines (-want +got):\n%s", diff)
	}
	if rest := string(l.pending); rest != "mallory.owner@evil-corp.net and more" {
		t.Errorf("held back %q, want the unfinished line from the address on", rest)
	}
}
