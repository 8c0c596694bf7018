package e2e

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/host"
	"github.com/ramabana/ramabana-mcp/host/internal/pluginstore"
	"github.com/ramabana/ramabana-mcp/host/internal/supervise"
	"github.com/ramabana/ramabana-mcp/internal/pluginrpc"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// pluginCmdRun runs a plugin subcommand in-process against the built
// binary (for the bundled groups), returning stdout and the error.
func pluginCmdRun(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := host.PluginCommand(context.Background(), args, host.CommandEnv{Self: binary, Version: "dev", Stdout: &stdout, Stderr: &stderr})
	if stderr.Len() > 0 {
		t.Logf("stderr of plugin %v:\n%s", args, stderr.String())
	}
	return stdout.String(), err
}

// listRows parses `plugin list` output into rows by name: SOURCE, VERSION,
// PROTOCOL, TOOLS, SHA256, GROUPS and HEALTH (the rest of the line).
func listRows(t *testing.T, out string) (map[string][]string, []string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if want := []string{"NAME", "SOURCE", "VERSION", "PROTOCOL", "TOOLS", "SHA256", "GROUPS", "HEALTH"}; !cmp.Equal(strings.Fields(lines[0]), want) {
		t.Fatalf("header %q", lines[0])
	}
	rows := map[string][]string{}
	var rest []string
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) < 8 || strings.HasPrefix(l, "skipped:") || strings.HasPrefix(l, "note:") {
			rest = append(rest, l)
			continue
		}
		rows[f[0]] = append(f[1:7], strings.Join(f[7:], " "))
	}
	return rows, rest
}

var bundledRows = map[string][]string{
	"code":     {"bundled", "1", "code", "ok"},
	"files":    {"bundled", "1", "files", "ok"},
	"git":      {"bundled", "1", "git", "ok"},
	"image":    {"bundled", "1", "image", "ok"},
	"legacy":   {"bundled", "1", "legacy", "ok"},
	"lsp":      {"bundled", "1", "lsp", "ok"},
	"memory":   {"bundled", "1", "memory", "ok"},
	"notebook": {"bundled", "1", "notebook", "ok"},
	"shell":    {"bundled", "1", "shell", "ok"},
	"web":      {"bundled", "1", "web", "ok"},
}

// summary keeps the columns that do not vary as the bundled groups grow:
// source, protocol, first group and health.
func summary(rows map[string][]string) map[string][]string {
	out := map[string][]string{}
	for name, r := range rows {
		first, _, _ := strings.Cut(r[5], ",")
		out[name] = []string{r[0], r[2], first, r[6]}
	}
	return out
}

// TestPluginInstallListVerifyRemove is not parallel: it also checks that
// no plugin process outlives the commands, which other tests' processes
// would confuse.
func TestPluginInstallListVerifyRemove(t *testing.T) {
	t.Setenv("RAMABANA_PLUGIN_PATH", "")
	cfg := t.TempDir()
	installed := filepath.Join(cfg, "plugins", "ramabana-plugin-echo")
	sum, err := pluginstore.FileSHA256(testPlugin)
	if err != nil {
		t.Fatal(err)
	}

	// Flags may follow the path.
	out, err := pluginCmdRun(t, "install", testPlugin, "--cfg", cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := "installed echo 0.0.1 (protocol 1)\n  sha256  " + sum + "\n  file    " + installed + "\n  source  " + testPlugin + "\n"
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("install output (-want +got):\n%s", diff)
	}

	out, err = pluginCmdRun(t, "list", "--cfg", cfg, "--start-timeout", "60s")
	if err != nil {
		t.Fatal(err)
	}
	rows, rest := listRows(t, out)
	wantRows := map[string][]string{"echo": {installed, "1", "echo", "ok"}}
	for k, v := range bundledRows {
		wantRows[k] = v
	}
	if diff := cmp.Diff(wantRows, summary(rows)); diff != "" {
		t.Errorf("list (-want +got):\n%s\n%s", diff, out)
	}
	if diff := cmp.Diff([]string{installed, "0.0.1", "1", "6", sum[:12], "echo,echo-extra", "ok"}, rows["echo"]); diff != "" {
		t.Errorf("echo row (-want +got):\n%s", diff)
	}
	if got := rows["files"][4]; got != "-" {
		t.Errorf("bundled sha256 column %q, want -", got)
	}
	if len(rest) > 0 {
		t.Errorf("unexpected lines: %q", rest)
	}
	if kids := proctest.Children(os.Getpid()); len(kids) > 0 {
		t.Errorf("plugin processes left after list: %v", kids)
	}

	out, err = pluginCmdRun(t, "verify", "--cfg", cfg)
	if err != nil || !strings.HasPrefix(out, "ok        echo  "+installed+"\n") {
		t.Errorf("verify = %q, %v", out, err)
	}

	// Modified after install: list refuses to run it, verify fails.
	f, err := os.OpenFile(installed, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.Write([]byte("tampered"))
	_ = f.Close()
	out, err = pluginCmdRun(t, "list", "--cfg", cfg, "--start-timeout", "60s")
	if err != nil {
		t.Fatal(err)
	}
	rows, _ = listRows(t, out)
	if r := rows["echo"]; r[1] != "-" || !strings.Contains(r[6], `plugin "echo" (`+installed+`) was modified after install`) {
		t.Errorf("tampered echo row %q", r)
	}
	out, err = pluginCmdRun(t, "verify", "--cfg", cfg)
	if err == nil || !strings.Contains(err.Error(), "1 of 1 plugins failed") {
		t.Errorf("verify of a tampered binary: err %v", err)
	}
	if !strings.HasPrefix(out, "mismatch  echo  "+installed+": sha256 ") || !strings.Contains(out, "locked "+sum) {
		t.Errorf("verify output %q", out)
	}

	out, err = pluginCmdRun(t, "remove", "echo", "--cfg", cfg)
	if err != nil || out != "removed echo ("+installed+")\n" {
		t.Errorf("remove = %q, %v", out, err)
	}
	out, err = pluginCmdRun(t, "verify", "--cfg", cfg)
	if err != nil || out != "no plugins installed in "+filepath.Join(cfg, "plugins")+"\n" {
		t.Errorf("verify after remove = %q, %v", out, err)
	}
	if _, err := pluginCmdRun(t, "remove", "echo", "--cfg", cfg); err == nil || !strings.Contains(err.Error(), "not installed") {
		t.Errorf("second remove: %v", err)
	}
}

func TestPluginListPrecedenceAndHealth(t *testing.T) {
	t.Parallel()
	cfg := t.TempDir()
	// echo installed in the user dir.
	if _, err := pluginCmdRun(t, "install", "--cfg", cfg, testPlugin); err != nil {
		t.Fatal(err)
	}
	// A --plugins dir, searched first: echo again (which wins), a binary
	// overriding the bundled files group (it describes itself as echo, but
	// is served under its file name), broken plugins, and a file that is
	// not executable.
	dir := pluginDir(t, "echo", "files", "nohandshake", "exits", "nokind")
	if err := os.WriteFile(filepath.Join(dir, supervise.PluginPrefix+"plain"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := pluginCmdRun(t, "list", "--cfg", cfg, "--plugins", dir, "--start-timeout", "60s")
	if err != nil {
		t.Fatal(err)
	}
	rows, rest := listRows(t, out)
	got := summary(rows)
	for _, name := range []string{"nohandshake", "exits"} {
		if h := got[name][3]; !strings.Contains(h, "no handshake") {
			t.Errorf("%s health %q, want a no-handshake error", name, h)
		}
		got[name][3] = "(error)"
	}
	if h := rows["exits"][6]; !strings.Contains(h, "testplugin: giving up at once") {
		t.Errorf("exits health %q lacks its stderr", h)
	}
	// What the server would refuse is not "ok" here either: one validator.
	if h := got["nokind"][3]; !strings.Contains(h, `tool "kindless": declares no kind`) {
		t.Errorf("nokind health %q, want the server's refusal", h)
	}
	got["nokind"][3] = "(error)"
	want := map[string][]string{
		"echo":        {filepath.Join(dir, supervise.PluginPrefix+"echo"), "1", "echo", "ok"},
		"files":       {filepath.Join(dir, supervise.PluginPrefix+"files"), "1", "echo", "ok"},
		"nohandshake": {filepath.Join(dir, supervise.PluginPrefix+"nohandshake"), "-", "-", "(error)"},
		"exits":       {filepath.Join(dir, supervise.PluginPrefix+"exits"), "-", "-", "(error)"},
		"nokind":      {filepath.Join(dir, supervise.PluginPrefix+"nokind"), "-", "-", "(error)"},
	}
	for k, v := range bundledRows {
		if k != "files" {
			want[k] = v
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("list (-want +got):\n%s\n%s", diff, out)
	}
	// The binary named files is a third party's, served instead of the
	// bundled group and without its privileges: list says so.
	wantRest := []string{
		"note: files shadows the bundled group files: the server runs it instead, as a third-party plugin, without the bundled group's privileges (it is never handed the values behind --vault placeholders)",
	}
	if len(rest) != 2 || rest[0] != wantRest[0] || !strings.Contains(rest[1], "skipped: ") || !strings.Contains(rest[1], "plain") {
		t.Errorf("lines after the table %q, want the note on files, then one skipped line for the plain file", rest)
	}
}

// TestPluginInstallListExitOnStdinEOF: a plugin that exits when its stdin
// reaches EOF, as docs/plugin-protocol.md asks of a plugin in any language,
// installs and lists: install and list launch it as the server does, on a
// lifeline pipe that stays open while the plugin runs. On a stdin already
// at EOF (/dev/null, as they once gave) it exits at once, which is checked
// first.
func TestPluginInstallListExitOnStdinEOF(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(pluginDir(t, "eofexit"), supervise.PluginPrefix+"eofexit")

	hs := pluginrpc.Handshake()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), hs.MagicCookieKey+"="+hs.MagicCookieValue,
		"PLUGIN_PROTOCOL_VERSIONS=1", "PLUGIN_UNIX_SOCKET_DIR="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil || !strings.Contains(stderr.String(), "stdin reached EOF") {
			t.Fatalf("on /dev/null the plugin exited with %v, stderr %q; want a clean exit on EOF", err, stderr.String())
		}
	case <-time.After(proctest.Patience):
		_ = cmd.Process.Kill()
		<-exited
		t.Fatal("on /dev/null the plugin did not exit: the test no longer tells a lifeline from /dev/null")
	}

	cfg := t.TempDir()
	out, err := pluginCmdRun(t, "install", "--cfg", cfg, bin)
	if err != nil || !strings.HasPrefix(out, "installed eofexit 0.0.1 (protocol 1)\n") {
		t.Fatalf("install = %q, %v", out, err)
	}
	out, err = pluginCmdRun(t, "list", "--cfg", cfg, "--start-timeout", "60s")
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := listRows(t, out)
	installed := filepath.Join(cfg, "plugins", supervise.PluginPrefix+"eofexit")
	if diff := cmp.Diff([]string{installed, "1", "eofexit", "ok"}, summary(rows)["eofexit"]); diff != "" {
		t.Errorf("eofexit row (-want +got):\n%s\n%s", diff, out)
	}
}

func TestPluginInstallReplaceAndOverride(t *testing.T) {
	t.Parallel()
	cfg := t.TempDir()
	link := filepath.Join(t.TempDir(), supervise.PluginPrefix+"shadow") // describes itself as "shadow"
	if err := os.Symlink(testPlugin, link); err != nil {
		t.Fatal(err)
	}
	if _, err := pluginCmdRun(t, "install", "--cfg", cfg, link); err != nil {
		t.Fatal(err)
	}
	out, err := pluginCmdRun(t, "install", "--cfg", cfg, link)
	if err != nil || !strings.HasPrefix(out, "replaced shadow 0.0.1 with shadow 0.0.1 (protocol 1)\n") {
		t.Errorf("second install = %q, %v", out, err)
	}
	// An earlier --plugins dir shadows the installed binary: install says so.
	dir := pluginDir(t, "shadow")
	out, err = pluginCmdRun(t, "install", "--cfg", cfg, "--plugins", dir, link)
	if err != nil || !strings.Contains(out, "warning: the server starts "+filepath.Join(dir, supervise.PluginPrefix+"shadow")+" instead") {
		t.Errorf("shadowed install = %q, %v", out, err)
	}
}

func TestPluginCommandErrors(t *testing.T) {
	t.Parallel()
	cfg := t.TempDir()
	junk := filepath.Join(t.TempDir(), "junk")
	if err := os.WriteFile(junk, []byte("#!/bin/sh\necho hello\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		args []string
		want string
	}{
		"no command":         {nil, "usage: ramabana-mcp plugin"},
		"serve, no group":    {[]string{"serve"}, "usage: ramabana-mcp plugin serve <group>"},
		"unknown command":    {[]string{"frob", "--cfg", cfg}, `plugin "frob": unknown command`},
		"install no path":    {[]string{"install", "--cfg", cfg}, "want 1 argument(s), got 0"},
		"list extra":         {[]string{"list", "x", "--cfg", cfg}, "want 0 argument(s), got 1"},
		"bad flag":           {[]string{"list", "--frob"}, "flag provided but not defined: -frob"},
		"install /bin/true":  {[]string{"install", "/bin/true", "--cfg", cfg}, `/bin/true is not a ramabana plugin: start plugin "true": no handshake`},
		"install junk":       {[]string{"install", junk, "--cfg", cfg}, `is not a ramabana plugin: start plugin "junk": no handshake: the plugin's first line was "hello"`},
		"remove unknown":     {[]string{"remove", "nope", "--cfg", cfg}, `remove "nope": not installed`},
		"install not a file": {[]string{"install", cfg, "--cfg", cfg}, "not a regular file"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// None of these starts a bundled group: run the real entry point.
			var stdout, stderr bytes.Buffer
			err := host.PluginCommand(context.Background(), tc.args, host.CommandEnv{Self: os.Args[0], Version: "dev", Stdout: &stdout, Stderr: &stderr})
			out := stdout.String()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if out != "" {
				t.Errorf("stdout %q on error", out)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(cfg, "plugins")); !os.IsNotExist(err) {
		t.Errorf("failed commands wrote the plugin dir: %v", err)
	}
	// -h prints the usage to stdout and is not an error.
	var stdout, stderr bytes.Buffer
	for _, args := range [][]string{{"-h"}, {"help"}, {"list", "-h"}, {"install", "--help"}} {
		stdout.Reset()
		stderr.Reset()
		err := host.PluginCommand(context.Background(), args, host.CommandEnv{Self: os.Args[0], Version: "dev", Stdout: &stdout, Stderr: &stderr})
		if err != nil || !strings.Contains(stdout.String(), "install PATH") || !strings.Contains(stdout.String(), "--plugins DIRS") || stderr.Len() > 0 {
			t.Errorf("%q: %v, stdout %q, stderr %q", args, err, stdout.String(), stderr.String())
		}
	}
}
