package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// TestPluginsStartAtTheirFirstCallAndExitWhenIdle, through the binary: a
// server that has listed its tools runs no plugin process; a call starts
// its plugin's, which runs while the call does; --plugin-idle after the
// call it is gone, and the next call starts it again.
func TestPluginsStartAtTheirFirstCallAndExitWhenIdle(t *testing.T) {
	t.Parallel()
	root := project(t)
	s := startStdio(t, root, "--write", "--plugin-idle", "300ms")
	if n := len(tools(t, s.session)); n < 10 {
		t.Fatalf("%d tools listed, want the bundled groups'", n)
	}
	if kids := proctest.Children(s.cmd.Process.Pid); len(kids) != 0 {
		t.Errorf("the server runs %d processes before any call, want none: %v", len(kids), kids)
	}
	for round := range 2 {
		// The command runs until the test lets it end: its plugin is seen
		// running during the call, whatever the machine's speed.
		release := filepath.Join(root, "release-"+strconv.Itoa(round))
		done := make(chan error, 1)
		go func() {
			res, err := call(t, s.session, "run_command", map[string]any{"command": "while [ ! -e " + filepath.Base(release) + " ]; do sleep 0.02; done; echo released"})
			if err == nil && (res.IsError || !strings.Contains(text(res), "released")) {
				err = fmt.Errorf("run_command = %q", text(res))
			}
			done <- err
		}()
		s.awaitPlugins(t, "shell")
		if err := os.WriteFile(release, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if !proctest.Await(func() bool { return len(proctest.Children(s.cmd.Process.Pid)) == 0 }) {
			t.Fatalf("round %d: the shell plugin still runs after --plugin-idle; stderr:\n%s", round, s.stderr)
		}
	}
}

// TestAPluginBinaryIsDescribedOnce: the first server launches a plugin
// binary to learn its tools and keeps the description in the config dir;
// the next one lists them without launching it, and starts it at its
// first call.
func TestAPluginBinaryIsDescribedOnce(t *testing.T) {
	t.Parallel()
	root, cfg, plugins := project(t), t.TempDir(), pluginDir(t, "echo")
	first := startStdio(t, root, "--cfg", cfg, "--plugins", plugins)
	if _, ok := tools(t, first.session)["echo"]; !ok {
		t.Fatalf("echo not listed; stderr:\n%s", first.stderr)
	}
	first.awaitPlugins(t, "echo") // launched to describe itself
	first.stop(t)

	next := startStdio(t, root, "--cfg", cfg, "--plugins", plugins)
	if _, ok := tools(t, next.session)["echo"]; !ok {
		t.Fatalf("echo not listed from its kept description; stderr:\n%s", next.stderr)
	}
	next.echoStartsAtItsFirstCall(t)
}

// echoStartsAtItsFirstCall checks that the server, having listed its
// tools, runs no process, and that a call of the echo plugin's pid tool
// starts exactly the process that answers it.
func (s *server) echoStartsAtItsFirstCall(t *testing.T) {
	t.Helper()
	if kids := proctest.Children(s.cmd.Process.Pid); len(kids) != 0 {
		t.Errorf("the server runs %v before any call, want no process", kids)
	}
	res, err := call(t, s.session, "pid", map[string]any{})
	if err != nil || res.IsError {
		t.Fatalf("pid = %q, %v", text(res), err)
	}
	pid, _ := strconv.Atoi(text(res))
	if got := s.awaitPlugins(t, "echo"); len(got) != 1 || got[0] != pid {
		t.Errorf("the server's plugins after the call = %v, want echo's %d", got, pid)
	}
}

// TestABundledGroupIsListedFromWhatItSaidLastTime: the first server keeps
// each bundled group's description in the config dir; the next one lists
// the group's tools from it without building them in-process. What is
// kept is only a presumption: a kept description that differs from the
// group's own (here a view_file description edited in the file) is
// replaced by what the group's process says at its first call, for the
// client at once and in the file for the next start.
func TestABundledGroupIsListedFromWhatItSaidLastTime(t *testing.T) {
	t.Parallel()
	root, cfg := project(t), t.TempDir()
	first := startStdio(t, root, "--cfg", cfg)
	want := tools(t, first.session)["view_file"]
	if want == nil {
		t.Fatalf("view_file not listed; stderr:\n%s", first.stderr)
	}
	first.stop(t)

	kept := keptFile(t, cfg, "files")
	raw, err := os.ReadFile(kept)
	if err != nil {
		t.Fatal(err)
	}
	const planted = "KEPT-NOT-BUILT: a description read from the kept file"
	edited := strings.Replace(string(raw), `"Description":"`+jsonText(t, want.Description)+`"`, `"Description":"`+planted+`"`, 1)
	if edited == string(raw) {
		t.Fatalf("view_file's description not found in %s", kept)
	}
	if err := os.WriteFile(kept, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}

	changed := make(chan struct{}, 16)
	next := startStdioEnvOpts(t, nil, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}}, root, "--cfg", cfg)
	if got := tools(t, next.session)["view_file"]; got == nil || got.Description != planted {
		t.Fatalf("the next server's view_file = %+v, want it listed from the kept file (%q)", got, planted)
	}
	if kids := proctest.Children(next.cmd.Process.Pid); len(kids) != 0 {
		t.Errorf("the next server runs %v before any call, want no process", kids)
	}
	if res, err := call(t, next.session, "view_file", map[string]any{"path": "."}); err != nil {
		t.Fatalf("view_file: %v", err)
	} else if res.IsError {
		t.Logf("view_file of a folder: %s", text(res)) // the call's outcome is not the point: its process described itself
	}
	select {
	case <-changed:
	case <-time.After(proctest.Patience):
		t.Fatalf("no tools/list_changed after the files process described itself otherwise; stderr:\n%s", next.stderr)
	}
	if got := tools(t, next.session)["view_file"]; got == nil || got.Description != want.Description {
		t.Errorf("after the files process described itself, view_file = %q, want its own description %q", got.Description, want.Description)
	}
	if !proctest.Await(func() bool {
		b, err := os.ReadFile(kept)
		return err == nil && !strings.Contains(string(b), planted) && strings.Contains(string(b), jsonText(t, want.Description))
	}) {
		t.Errorf("the kept file still holds the edited description, or lost the group's own")
	}
}

// jsonText is s as it appears inside a JSON string.
func jsonText(t *testing.T, s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b[1 : len(b)-1])
}

// TestAnInstalledPluginIsListedFromWhatInstallRecorded: `plugin install`
// records what the plugin described, so that the first server serving it
// with the same permissions lists its tools without launching it (from
// another folder than install ran in: the roots are the server's) and
// starts it at its first call; a server with other permissions (--write)
// launches it at start to ask, as for a plugin never described.
func TestAnInstalledPluginIsListedFromWhatInstallRecorded(t *testing.T) {
	t.Parallel()
	cfg := t.TempDir()
	install := exec.Command(binary, "plugin", "install", "--cfg", cfg, testPlugin)
	install.Dir = t.TempDir()
	install.Env = append(os.Environ(), "RAMABANA_PLUGIN_PATH=")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("plugin install: %v\n%s", err, out)
	}
	keptFile(t, cfg, "echo") // what install recorded

	env := []string{"RAMABANA_PLUGIN_PATH="}
	s := startStdioEnv(t, env, project(t), "--cfg", cfg)
	if _, ok := tools(t, s.session)["echo"]; !ok {
		t.Fatalf("echo not listed; stderr:\n%s", s.stderr)
	}
	s.echoStartsAtItsFirstCall(t) // listed from install's record

	// Other permissions: what install recorded is not theirs.
	w := startStdioEnv(t, env, project(t), "--cfg", cfg, "--write", "--groups", "-shell")
	if _, ok := tools(t, w.session)["echo"]; !ok {
		t.Fatalf("echo not listed with --write; stderr:\n%s", w.stderr)
	}
	w.awaitPlugins(t, "echo") // launched to describe itself
}

// keptFile is the one description file the config dir cfg keeps for the
// plugin or group name.
func keptFile(t *testing.T, cfg, name string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(cfg, "descriptions", name, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 {
		t.Fatalf("descriptions kept for %s: %v, want one", name, files)
	}
	return files[0]
}
