package launch

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// testPlugin is internal/testplugin, built once; its name picks its mode.
var testPlugin string

func TestMain(m *testing.M) {
	proctest.RunWithTestPlugin(m, "testplugin", func(path string) { testPlugin = path })
}

// as is the test plugin under the file name that picks mode.
func as(t *testing.T, mode string) Command {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ramabana-plugin-"+mode)
	if err := os.Symlink(testPlugin, path); err != nil {
		t.Fatal(err)
	}
	return Command{Name: mode, Path: path}
}

func opts() Options {
	return Options{Env: Environ(os.Environ(), nil), StartTimeout: time.Minute}
}

// TestStartRefusesAndExplains: every way a binary can fail to be a plugin
// the server would serve is one error naming the plugin and saying why,
// and leaves no process behind.
func TestStartRefusesAndExplains(t *testing.T) {
	t.Parallel()
	for mode, want := range map[string]string{
		"nohandshake": `start plugin "nohandshake": no handshake: the plugin's first line was "hello, I am not a plugin"`,
		"exits":       "(stderr: testplugin: giving up at once)",
		"badcookie":   `start plugin "badcookie": no handshake: the plugin ended its output without one (stderr: This binary is a plugin`,
		"nokind":      `plugin "nokind": group "nokind": tool "kindless": declares no kind`,
		"unresolved":  `plugin "unresolved": group "unresolved": tool "dangling": input schema: `,
	} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			cmd := as(t, mode)
			_, _, err := Start(context.Background(), cmd, sdk.Host{}, opts())
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("Start = %v, want an error containing %q", err, want)
			}
			if !proctest.Await(func() bool { return len(running(t, cmd.Path)) == 0 }) {
				t.Errorf("the refused plugin is still running: %v", running(t, cmd.Path))
			}
		})
	}
}

// TestStartAndStop: a started plugin is described, answers calls, sees only
// the allow-listed environment plus a call token it removes, and Stop ends
// its process.
func TestStartAndStop(t *testing.T) {
	t.Parallel()
	o := opts()
	o.Env = Environ(append(os.Environ(), "LAUNCH_TEST_SECRET=s3cret"), nil)
	p, desc, err := Start(context.Background(), as(t, "echo"), sdk.Host{Roots: []string{t.TempDir()}}, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	if desc.Name != "echo" || p.Protocol() != 1 || p.Pid() == 0 {
		t.Errorf("described %q over protocol %d, pid %d", desc.Name, p.Protocol(), p.Pid())
	}
	res, err := p.Group().Call(context.Background(), &sdk.Call{Tool: "env", Arguments: []byte(`{}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if env := res.Text(); strings.Contains(env, "LAUNCH_TEST_SECRET") || strings.Contains(env, "RAMABANA_PLUGIN_TOKEN") || !strings.Contains(env, "PATH=") {
		t.Errorf("plugin environment:\n%s", env)
	}
	pid := p.Pid()
	p.Stop()
	if !p.Exited() || proctest.Alive(pid) {
		t.Errorf("plugin %d still running after Stop", pid)
	}
}

// TestMisdeclaredToolIsLeftOut: a tool declared for the wrong task (a
// skill mode on a completion tool) is left out, with a warning naming it;
// the plugin's other tools are served.
func TestMisdeclaredToolIsLeftOut(t *testing.T) {
	t.Parallel()
	logs := &proctest.Output{}
	o := opts()
	o.Logger = slog.New(slog.NewTextHandler(logs, nil))
	p, desc, err := Start(context.Background(), as(t, "misdeclared"), sdk.Host{}, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	var names []string
	for _, tool := range desc.Groups[0].Tools {
		names = append(names, tool.Name)
	}
	if !slices.Equal(names, []string{"fine"}) {
		t.Errorf("served tools %q, want only fine", names)
	}
	if !strings.Contains(logs.String(), `tool \"moded\": mode \"auto\" is for skill tools only`) {
		t.Errorf("no warning naming the refused tool; log:\n%s", logs)
	}
}

func TestEnviron(t *testing.T) {
	t.Parallel()
	got := Environ([]string{"PATH=/bin", "OPENAI_API_KEY=k", "LC_ALL=C", "EXTRA=1", "junk"}, []string{"EXTRA"})
	want := []string{"PATH=/bin", "LC_ALL=C", "EXTRA=1"}
	if !slices.Equal(got, want) {
		t.Errorf("Environ = %q, want %q", got, want)
	}
}

// running lists the pids whose command line starts with path.
func running(t *testing.T, path string) []int {
	t.Helper()
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		if args := proctest.Args(pid); len(args) > 0 && args[0] == path {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestDescribeLeavesNoSocketFolder: a one-shot launch (plugin list and
// install) keeps its socket out of this process's shared socket folder,
// which only the server removes at exit; a served plugin's goes in it.
func TestDescribeLeavesNoSocketFolder(t *testing.T) {
	t.Parallel()
	if got := socketsFor(Options{oneShot: true}, nil); got != nil {
		t.Errorf("a one-shot launch uses the shared socket folder %s", got.TempDir)
	}
	if dir, err := socketDir(); err == nil && dir != "" {
		if got := socketsFor(Options{}, nil); got == nil || got.TempDir != dir {
			t.Errorf("a served plugin's sockets: %+v, want the shared folder %s", got, dir)
		}
	}
}

func TestWithLogLevel(t *testing.T) {
	t.Parallel()
	logger := func(l slog.Level) *slog.Logger {
		return slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: l}))
	}
	tests := map[string]struct {
		env    []string
		logger *slog.Logger
		want   string
	}{
		"debug host":      {nil, logger(slog.LevelDebug), "RAMABANA_LOG_LEVEL=DEBUG"},
		"warn host":       {[]string{"PATH=/bin"}, logger(slog.LevelWarn), "RAMABANA_LOG_LEVEL=WARN"},
		"error host":      {nil, logger(slog.LevelError), "RAMABANA_LOG_LEVEL=ERROR"},
		"the user's wins": {[]string{"RAMABANA_LOG_LEVEL=debug"}, logger(slog.LevelError), "RAMABANA_LOG_LEVEL=debug"},
		"default is info": {nil, logger(slog.LevelInfo), "RAMABANA_LOG_LEVEL=INFO"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := WithLogLevel(tc.env, tc.logger)
			var set []string
			for _, kv := range got {
				if strings.HasPrefix(kv, LogLevelVar+"=") {
					set = append(set, kv)
				}
			}
			if len(set) != 1 || set[0] != tc.want {
				t.Errorf("WithLogLevel(%v) sets %v, want [%s]", tc.env, set, tc.want)
			}
			var back slog.Level
			if err := back.UnmarshalText([]byte(strings.TrimPrefix(set[0], LogLevelVar+"="))); err != nil {
				t.Errorf("sdk.Serve cannot read %s: %v", set[0], err)
			}
		})
	}
}

func TestPluginLineLevel(t *testing.T) {
	t.Parallel()
	tests := map[string]slog.Level{
		`time=... level=ERROR msg="boom"`: slog.LevelError,
		`level=error msg=boom`:            slog.LevelError,
		`level=warn msg=slow`:             slog.LevelWarn,
		`2026-01-02T03:04:05 [DEBUG] x`:   slog.LevelDebug,
		`level=debug msg=x`:               slog.LevelDebug,
		`panic: runtime error`:            slog.LevelError,
		`plain line`:                      slog.LevelInfo,
	}
	for line, want := range tests {
		if got := pluginLineLevel(line); got != want {
			t.Errorf("pluginLineLevel(%q) = %v, want %v", line, got, want)
		}
	}
}
