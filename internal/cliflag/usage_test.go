package cliflag

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPrintFlags(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	var d time.Duration
	var n int
	fs.Bool("write", false, "mount the write tools")
	fs.String("addr", "127.0.0.1:8765", "listen address")
	fs.String("cfg", "", "config dir (default: ~/.config)")
	DurationVar(fs, &d, "wait", 5*time.Second, "how long to wait")
	CountVar(fs, &n, "steps", 0, "model calls")
	var buf bytes.Buffer
	PrintFlags(&buf, fs, []Section{{Title: "serving", Flags: []string{"addr HOST:PORT", "write"}}, {Title: "config", Flags: []string{"cfg DIR", "wait DURATION"}}})
	want := `
serving:
  --addr HOST:PORT
        listen address (default 127.0.0.1:8765)
  --write
        mount the write tools

config:
  --cfg DIR
        config dir (default: ~/.config)
  --wait DURATION
        how long to wait (default 5s)

other flags:
  --steps VALUE
        model calls
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
}

func TestWrap(t *testing.T) {
	t.Parallel()
	got := wrap("one two three four five "+strings.Repeat("x", 12), 10)
	want := []string{"one two", "three four", "five", strings.Repeat("x", 12)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("wrap (-want +got):\n%s", diff)
	}
}

func TestValues(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		args []string
		want error
	}{
		"duration":          {args: []string{"--wait", "1m30s"}},
		"duration zero":     {args: []string{"--wait", "0"}},
		"duration no unit":  {args: []string{"--wait", "5"}, want: errDuration},
		"duration negative": {args: []string{"--wait", "-1s"}, want: errDuration},
		"count":             {args: []string{"--steps", "3"}},
		"count negative":    {args: []string{"--steps", "-3"}, want: errCount},
		"count not a count": {args: []string{"--steps", "3.5"}, want: errCount},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			fs.SetOutput(&bytes.Buffer{})
			var d time.Duration
			var n int
			DurationVar(fs, &d, "wait", time.Second, "")
			CountVar(fs, &n, "steps", 1, "")
			err := fs.Parse(tc.args)
			if tc.want == nil && err != nil || tc.want != nil && (err == nil || !strings.Contains(err.Error(), tc.want.Error())) {
				t.Errorf("parse %q: %v, want %v", tc.args, err, tc.want)
			}
		})
	}
}

func TestUsageError(t *testing.T) {
	t.Parallel()
	base := errors.New("bad")
	err := Usage(base, "x --help")
	ue, ok := errors.AsType[*UsageError](err)
	if !ok || ue.Help != "x --help" || !errors.Is(err, base) {
		t.Fatalf("Usage = %#v", err)
	}
	if again := Usage(err, "y --help"); again != err {
		t.Errorf("a usage error wrapped again: %v", again)
	}
	if Usage(nil, "x") != nil {
		t.Error("Usage(nil) is not nil")
	}
}

// TestParseAnywhere: flags before, between and after the arguments are
// parsed; the arguments come back in order; a bad flag is an error.
func TestParseAnywhere(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg := fs.String("cfg", "", "")
	n := fs.Int("n", 0, "")
	rest, err := ParseAnywhere(fs, []string{"--cfg", "d", "a", "-n", "3", "b"})
	if err != nil || *cfg != "d" || *n != 3 || strings.Join(rest, " ") != "a b" {
		t.Errorf("ParseAnywhere = %q, %v (cfg %q, n %d)", rest, err, *cfg, *n)
	}
	if _, err := ParseAnywhere(fs, []string{"a", "--nope"}); err == nil {
		t.Error("an unknown flag after an argument was accepted")
	}
}
