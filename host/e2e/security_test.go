package e2e

// The trust boundary, tried as an attacker would, against the real binary
// and through a real MCP client: every path-taking tool of every group with
// hostile paths, a directory swapped for a symlink mid-call, repository
// config that names programs, commands that try to outlive their call or
// read the host's secrets. Each test logs what it tried and what held; the
// race loops run for RAMABANA_RACE_SECONDS (default 1 s, 0.2 s with -short;
// `make security-long` runs them for 10 s).

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/ramabana/ramabana-mcp/sdk"

	"github.com/ramabana/ramabana-mcp/internal/pluginclient"
	"github.com/ramabana/ramabana-mcp/internal/pluginrpc"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// raceDuration is how long each rename-exchange race runs.
func raceDuration(t *testing.T) time.Duration {
	if s := os.Getenv("RAMABANA_RACE_SECONDS"); s != "" {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f <= 0 {
			t.Fatalf("RAMABANA_RACE_SECONDS=%q: want a positive number of seconds", s)
		}
		return time.Duration(f * float64(time.Second))
	}
	if testing.Short() {
		return 200 * time.Millisecond
	}
	return time.Second
}

// tally counts the attacks a test tried and how many the boundary held.
type tally struct {
	mu     sync.Mutex
	tried  int
	broken []string
}

func (c *tally) held(ok bool, format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tried++
	if !ok {
		c.broken = append(c.broken, fmt.Sprintf(format, args...))
	}
}

func (c *tally) report(t *testing.T, what string) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	t.Logf("%s: %d tried, %d held, %d broken", what, c.tried, c.tried-len(c.broken), len(c.broken))
	for _, b := range c.broken {
		t.Errorf("broken: %s", b)
	}
}

func nonce(t *testing.T) string {
	t.Helper()
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// arena is a served folder and, beside it, an outside folder holding
// secrets, with symlinks from the one into the other.
type arena struct {
	root, outside, secret string
}

const notebookJSON = `{
 "cells": [
  {"cell_type": "code", "execution_count": null, "id": "c1", "metadata": {}, "outputs": [], "source": ["print('%s')\n"]}
 ],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 5
}
`

func newArena(t *testing.T) *arena {
	t.Helper()
	base := t.TempDir()
	a := &arena{root: filepath.Join(base, "root"), outside: filepath.Join(base, "outside"), secret: "SECRET-" + nonce(t)}
	for _, d := range []string{a.root, a.outside, filepath.Join(a.root, "pkg")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(a.outside, "secret.txt"):   "ping pong " + a.secret + "\n",
		filepath.Join(a.outside, "secret.py"):    "def secret_fn():\n    return '" + a.secret + "'\n",
		filepath.Join(a.outside, "nb.ipynb"):     fmt.Sprintf(notebookJSON, a.secret),
		filepath.Join(a.root, "pkg", "ok.txt"):   "inside\n",
		filepath.Join(a.root, "pkg", "ok.py"):    "def ok_fn():\n    return 1\n",
		filepath.Join(a.root, "pkg", "ok.ipynb"): fmt.Sprintf(notebookJSON, "inside"),
	}
	for p, s := range files {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"out":    a.outside,
		"chain1": "chain2",
		"chain2": "chain3",
		"chain3": "../outside",
		"dangle": filepath.Join(a.outside, "new-from-dangle.txt"),
		"inpkg":  filepath.Join(a.root, "pkg"), // absolute, and inside: legitimate
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(a.root, name)); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

// snapshot is every file under dir with its content and mode, for proving
// that nothing outside changed.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		v := fi.Mode().String()
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		}
		out[p] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnapshot(a, b map[string]string) string {
	var diffs []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			diffs = append(diffs, "removed "+k)
		} else if v != w {
			diffs = append(diffs, "changed "+k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			diffs = append(diffs, "added "+k)
		}
	}
	sort.Strings(diffs)
	return strings.Join(diffs, ", ")
}

// pathPayloads are hostile spellings of an outside file f, relative to the
// arena's root.
func (a *arena) pathPayloads(f string) map[string]string {
	rel := "../outside/" + f
	return map[string]string{
		"dotdot":        rel,
		"dotdot-deep":   "pkg/../../outside/" + f,
		"absolute":      filepath.Join(a.outside, f),
		"symlink-dir":   "out/" + f,
		"symlink-chain": "chain1/" + f,
		// Lexically inside (root/outside/f): allowed, but must not reach
		// the real outside folder through the link.
		"lexical-dots":    "out/../outside/" + f,
		"dot-segments":    "./out/./" + f,
		"nul-byte":        "pkg/ok.txt\x00/../../outside/" + f,
		"long-path":       strings.Repeat("pkg/../", 600) + rel,
		"long-component":  strings.Repeat("x", 300) + "/../" + rel,
		"inside-absolute": filepath.Join(a.root, "out", f),
	}
}

// pathTools are the path-taking tools of every group, each given a path
// (and a target file kind); write tools come with --write.
var pathTools = []struct {
	name string
	file string // the outside file the payload names
	args func(p string) map[string]any
}{
	{"view_file", "secret.txt", func(p string) map[string]any { return map[string]any{"path": p} }},
	{"list_files", "", func(p string) map[string]any { return map[string]any{"path": p} }},
	{"search_code", "", func(p string) map[string]any { return map[string]any{"pattern": "SECRET", "path": p} }},
	{"outline", "secret.py", func(p string) map[string]any { return map[string]any{"path": p} }},
	{"find_symbol", "", func(p string) map[string]any { return map[string]any{"name": "secret_fn", "path": p} }},
	{"view_notebook", "nb.ipynb", func(p string) map[string]any { return map[string]any{"path": p} }},
	{"git_log", "", func(p string) map[string]any { return map[string]any{"repo": p} }},
	{"git_status", "", func(p string) map[string]any { return map[string]any{"repo": p} }},
	{"create_file", "new.txt", func(p string) map[string]any { return map[string]any{"path": p, "content": "pwned\n"} }},
	{"replace_text", "secret.txt", func(p string) map[string]any { return map[string]any{"path": p, "old": "ping", "new": "PWNED"} }},
	{"edit_cell", "nb.ipynb", func(p string) map[string]any {
		return map[string]any{"path": p, "index": 0, "source": "pwned"}
	}},
	{"insert_cell", "nb.ipynb", func(p string) map[string]any {
		return map[string]any{"path": p, "index": 0, "cell_type": "code", "source": "pwned"}
	}},
	{"delete_cell", "nb.ipynb", func(p string) map[string]any { return map[string]any{"path": p, "index": 0} }},
	{"git_add", "", func(p string) map[string]any { return map[string]any{"repo": p, "paths": []string{"secret.txt"}} }},
	{"run_command", "", func(p string) map[string]any {
		return map[string]any{"command": "cat secret.txt; echo pwned > pwned.txt", "cwd": p}
	}},
}

// TestPathPayloadsStayInsideTheRoots sends every hostile path to every
// path-taking tool, with the root given as is and as a symlink to it: each
// call is refused or returns nothing from outside, and nothing outside
// changes.
func TestPathPayloadsStayInsideTheRoots(t *testing.T) {
	t.Parallel()
	a := newArena(t)
	// The outside folder is a git repository too, for the git tools.
	gitInit(t, a.outside)
	linkRoot := filepath.Join(filepath.Dir(a.root), "root-link")
	if err := os.Symlink(a.root, linkRoot); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, a.outside)
	var c tally
	for _, served := range []string{a.root, linkRoot} {
		s := startStdio(t, served, "--write", "--groups", "exhash")
		mounted := tools(t, s.session)
		for _, tool := range pathTools {
			if mounted[tool.name] == nil {
				t.Fatalf("%s is not mounted", tool.name)
			}
			for kind, p := range a.pathPayloads(tool.file) {
				if tool.file == "" {
					p = strings.TrimSuffix(strings.TrimSuffix(p, "/"), "/") // the folder itself
				}
				res, err := call(t, s.session, tool.name, tool.args(p))
				refused := err != nil || res.IsError
				leaked := err == nil && strings.Contains(text(res), a.secret)
				mayAnswer := kind == "lexical-dots"
				c.held(!leaked && (refused || mayAnswer),
					"%s %s (%q, root %s): refused=%v leaked=%v: %.300s", tool.name, kind, p, served, refused, leaked, resultText(res, err))
			}
		}
		// A dangling link to outside is no write target.
		for _, tool := range []string{"create_file", "replace_text"} {
			res, err := call(t, s.session, tool, map[string]any{"path": "dangle", "content": "pwned", "old": "x", "new": "y"})
			c.held(err != nil || res.IsError, "%s through a dangling link: %s", tool, resultText(res, err))
		}
		// An absolute symlink whose target is inside the root still works.
		res, err := call(t, s.session, "view_file", map[string]any{"path": "inpkg/ok.txt"})
		if err != nil || res.IsError {
			t.Errorf("view_file through an absolute link inside the root: %s", resultText(res, err))
		}
	}
	if d := sameSnapshot(before, snapshot(t, a.outside)); d != "" {
		c.held(false, "the outside folder changed: %s", d)
	}
	c.report(t, "path payloads")
}

func resultText(res *mcp.CallToolResult, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return text(res)
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "init"},
	} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// TestSymlinkSwapRaceLeaksNothing swaps a directory inside the root with a
// symlink to an outside directory (renameat2 RENAME_EXCHANGE) in a tight
// loop while a client reads, creates and replaces through it: no outside
// content comes back and nothing outside is written.
func TestSymlinkSwapRaceLeaksNothing(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("swapping a directory and a symlink in one step needs renameat2 (Linux)")
	}
	a := newArena(t)
	sw := filepath.Join(a.root, "sw")
	if err := os.Mkdir(sw, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sw, "f.txt"), []byte("ping pong inside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a.outside, "f.txt"), []byte("ping pong "+a.secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	swLink := filepath.Join(a.root, "swlink")
	if err := os.Symlink(a.outside, swLink); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, a.outside)
	s := startStdio(t, a.root, "--write")

	stop := make(chan struct{})
	var swaps atomic.Int64
	var swapper sync.WaitGroup
	swapper.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := exchange(sw, swLink); err != nil {
				t.Errorf("renameat2: %v", err)
				return
			}
			swaps.Add(1)
		}
	})
	var c tally
	calls := 0
	deadline := time.Now().Add(3 * raceDuration(t))
	words := [2]string{"ping", "pong"}
	for i := 0; time.Now().Before(deadline); i++ {
		var res *mcp.CallToolResult
		var err error
		switch i % 3 {
		case 0:
			res, err = call(t, s.session, "view_file", map[string]any{"path": "sw/f.txt"})
		case 1:
			res, err = call(t, s.session, "create_file", map[string]any{"path": fmt.Sprintf("sw/new-%d.txt", i), "content": "x\n"})
		case 2:
			w := words[(i/3)%2]
			res, err = call(t, s.session, "replace_text", map[string]any{"path": "sw/f.txt", "old": w, "new": strings.ToUpper(w[:1]) + w[1:]})
		}
		calls++
		c.held(err != nil || !strings.Contains(text(res), a.secret), "call %d returned outside content", i)
	}
	close(stop)
	swapper.Wait()
	// Put the directory back where it was, whatever the last swap did.
	if fi, err := os.Lstat(sw); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		_ = exchange(sw, swLink)
	}
	after := snapshot(t, a.outside)
	c.held(sameSnapshot(before, after) == "", "the outside folder changed: %s", sameSnapshot(before, after))
	t.Logf("%d calls against %d swaps", calls, swaps.Load())
	c.report(t, "symlink swap race")
}

// markerScript writes a program that leaves a marker file named after the
// config key that ran it.
func markerScript(t *testing.T, dir, markers string) string {
	t.Helper()
	p := filepath.Join(dir, "evil.sh")
	script := "#!/bin/sh\ntouch \"" + markers + "/ran-$1\"\ncat\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRepositoryConfigRunsNoProgram gives the served repository config
// that names programs for git to run, and calls every git tool: read-only,
// and with --write but without the shell group, no program runs; not even
// after replace_text rewrites .git/config.
func TestRepositoryConfigRunsNoProgram(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	markers := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".gitattributes"), []byte("*.txt diff=evil filter=evil merge=evil\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitInit(t, root)
	evil := markerScript(t, markers, markers)
	cfg := map[string]string{
		"core.fsmonitor":      evil + " fsmonitor",
		"core.pager":          evil + " pager",
		"core.editor":         evil + " editor",
		"core.sshCommand":     evil + " ssh",
		"core.hooksPath":      filepath.Join(root, "hooks"),
		"diff.external":       evil + " external",
		"diff.evil.command":   evil + " diffcommand",
		"diff.evil.textconv":  evil + " textconv",
		"filter.evil.clean":   evil + " clean",
		"filter.evil.smudge":  evil + " smudge",
		"filter.evil.process": evil + " process",
		"merge.evil.driver":   evil + " merge",
		"gpg.program":         evil + " gpg",
		"gpg.ssh.program":     evil + " gpgssh",
		"commit.gpgSign":      "true",
		"credential.helper":   "!" + evil + " credential",
	}
	for k, v := range cfg {
		if out, err := exec.Command("git", "-C", root, "config", k, v).CombinedOutput(); err != nil {
			t.Fatalf("git config %s: %v\n%s", k, err, out)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, hook := range []string{"pre-commit", "commit-msg", "post-commit", "post-checkout", "reference-transaction"} {
		if err := os.WriteFile(filepath.Join(root, "hooks", hook), []byte("#!/bin/sh\ntouch \""+markers+"/ran-hook-"+hook+"\"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, ".git", "hooks", hook), []byte("#!/bin/sh\ntouch \""+markers+"/ran-githook-"+hook+"\"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Make a.txt dirty so that status and diff must look at it (and would
	// clean it through the filter).
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var c tally
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"git_status", map[string]any{}},
		{"git_diff", map[string]any{}},
		{"git_log", map[string]any{}},
		{"git_show", map[string]any{}},
		{"git_blame", map[string]any{"path": "a.txt"}},
		{"git_add", map[string]any{"paths": []string{"a.txt"}}},
		{"git_commit", map[string]any{"message": "m", "paths": []string{"a.txt"}}},
		{"git_branch", map[string]any{"name": "feature"}},
		{"git_checkout", map[string]any{"ref": "feature"}},
	}
	for _, mode := range [][]string{{}, {"--write", "--groups", "-shell"}} {
		s := startStdio(t, root, mode...)
		mounted := tools(t, s.session)
		for _, cl := range calls {
			if mounted[cl.tool] == nil {
				continue
			}
			res, err := call(t, s.session, cl.tool, cl.args)
			ran, _ := os.ReadDir(markers)
			var names []string
			for _, e := range ran {
				if strings.HasPrefix(e.Name(), "ran-") {
					names = append(names, e.Name())
				}
			}
			c.held(len(names) == 0, "%s %v ran %v: %.200s", cl.tool, mode, names, resultText(res, err))
			for _, n := range names {
				_ = os.Remove(filepath.Join(markers, n))
			}
		}
		if mounted["replace_text"] != nil {
			// The attack of the issue: rewrite .git/config through a write
			// tool, then ask for the status.
			res, err := call(t, s.session, "replace_text", map[string]any{"path": ".git/config", "old": "[core]", "new": "[core]\n\tfsmonitor = " + evil + " fsmonitor2"})
			_, _ = res, err
			_, _ = call(t, s.session, "git_status", map[string]any{})
			_, statErr := os.Stat(filepath.Join(markers, "ran-fsmonitor2"))
			c.held(errors.Is(statErr, fs.ErrNotExist), "replace_text on .git/config then git_status ran core.fsmonitor")
		}
	}
	c.report(t, "repository config programs")
}

// TestGitStaysInsideTheRoots points a served repository's .git at a
// repository outside, as a gitdir file and as a symlink: git tools refuse
// it and the outside repository does not change.
func TestGitStaysInsideTheRoots(t *testing.T) {
	t.Parallel()
	a := newArena(t)
	gitInit(t, a.outside)
	for name, make := range map[string]func(dir string) error{
		"gitfile": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: "+filepath.Join(a.outside, ".git")+"\n"), 0o644)
		},
		"symlink": func(dir string) error {
			return os.Symlink(filepath.Join(a.outside, ".git"), filepath.Join(dir, ".git"))
		},
	} {
		dir := filepath.Join(a.root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := make(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("changed\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshot(t, a.outside)
	s := startStdio(t, a.root, "--write")
	var c tally
	for _, repo := range []string{"gitfile", "symlink"} {
		for _, cl := range []struct {
			tool string
			args map[string]any
		}{
			{"git_log", map[string]any{"repo": repo}},
			{"git_show", map[string]any{"repo": repo}},
			{"git_branch", map[string]any{"repo": repo}},
			{"git_status", map[string]any{"repo": repo}},
			{"git_add", map[string]any{"repo": repo, "paths": []string{"secret.txt"}}},
			{"git_commit", map[string]any{"repo": repo, "message": "pwned", "paths": []string{"secret.txt"}}},
			{"git_branch", map[string]any{"repo": repo, "name": "pwned"}},
			{"git_checkout", map[string]any{"repo": repo, "ref": "main"}},
		} {
			res, err := call(t, s.session, cl.tool, cl.args)
			c.held(err != nil || res.IsError, "%s on a %s .git reached the outside repository: %.200s", cl.tool, repo, resultText(res, err))
		}
	}
	after := snapshot(t, a.outside)
	c.held(sameSnapshot(before, after) == "", "the outside repository changed: %s", sameSnapshot(before, after))
	c.report(t, "git outside the roots")
}

// waitGone polls until no process holds marker, or a bound passes; it
// returns the survivors and kills them.
func waitGone(marker string, bound time.Duration) []int {
	deadline := time.Now().Add(bound)
	for {
		left := proctest.Marked(marker)
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			for _, pid := range left {
				_ = proctest.Kill(pid)
			}
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// escapes are commands that try to outlive their call, each leaving a
// sleep whose command line holds the marker.
func escapes(marker string) map[string]string {
	sleeper := "exec -a " + marker + " sleep 300"
	return map[string]string{
		"background": "( " + sleeper + " ) &",
		"setsid":     "setsid bash -c '" + sleeper + "' < /dev/null > /dev/null 2>&1 &",
		"doublefork": "( ( bash -c '" + sleeper + "' < /dev/null > /dev/null 2>&1 & ) & )",
		"python-setsid": `python3 -c 'import os, sys
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execvp("bash", ["bash", "-c", sys.argv[1]])
    os._exit(0)' '` + sleeper + `' < /dev/null > /dev/null 2>&1`,
		"nohup-disown": "nohup bash -c '" + sleeper + "' > /dev/null 2>&1 & disown",
	}
}

// TestCommandsDoNotOutliveTheirCall runs each escape under run_command and
// ends the call normally, by timeout, and by killing the shell plugin with
// SIGKILL: no process the command started survives.
func TestCommandsDoNotOutliveTheirCall(t *testing.T) {
	t.Parallel()
	root := project(t)
	s := startStdio(t, root, "--write")
	var c tally
	// The escapes run at once, each in a call of its own on the one
	// session, so that the timeouts are waited for once.
	type ended struct {
		name, end, out string
		failed         bool
		left           int
	}
	results := make(chan ended)
	n := 0
	for name := range escapes("x") {
		for _, end := range []string{"normal", "timeout"} {
			n++
			marker := "ramabana-escape-" + nonce(t)
			go func() {
				command := escapes(marker)[name]
				args := map[string]any{"command": command + "\nsleep 0.2"}
				if end == "timeout" {
					args = map[string]any{"command": command + "\nsleep 300", "timeout_seconds": 2}
				}
				res, err := s.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_command", Arguments: args})
				out := resultText(res, err)
				r := ended{name: name, end: end, out: out, failed: err != nil || strings.Contains(out, "syntax error")}
				if !r.failed {
					r.left = len(waitGone(marker, proctest.Patience))
				}
				results <- r
			}()
		}
	}
	for range n {
		r := <-results
		if r.failed {
			t.Errorf("%s/%s: the command did not run: %s", r.name, r.end, r.out)
			continue
		}
		c.held(r.left == 0, "%s after a %s end: %d processes survived the call", r.name, r.end, r.left)
	}
	if t.Failed() {
		t.FailNow()
	}
	// Kill the shell plugin mid-call.
	for name := range escapes("x") {
		marker := "ramabana-escape-" + nonce(t)
		shellReady(t, s.session)
		done := make(chan string, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": escapes(marker)[name] + "\nsleep 300"}})
			done <- resultText(res, err)
		}()
		deadline := time.Now().Add(proctest.Patience)
		started := false
		for !started && time.Now().Before(deadline) {
			select {
			case out := <-done:
				t.Fatalf("%s: the call ended before the plugin was killed: %s\nserver log:\n%s", name, out, s.stderr)
			case <-time.After(20 * time.Millisecond):
			}
			started = len(proctest.Marked(marker)) > 0
		}
		if !started {
			t.Fatalf("%s: the escape never started", name)
		}
		plugin := shellPlugin(t, s.cmd.Process.Pid)
		if plugin == 0 {
			t.Fatal("no shell plugin process found")
		}
		_ = proctest.Kill(plugin)
		<-done
		left := waitGone(marker, proctest.Patience)
		c.held(len(left) == 0, "%s after kill -9 of the shell plugin: %d processes survived", name, len(left))
	}
	c.report(t, "commands outliving their call")
}

// shellReady waits until run_command answers again: a plugin killed
// several times in a row is relaunched after a crash-loop backoff.
func shellReady(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	deadline := time.Now().Add(proctest.Patience)
	for {
		res, err := call(t, cs, "run_command", map[string]any{"command": "true"})
		if err == nil && !res.IsError {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("run_command does not answer: %s", resultText(res, err))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// shellPlugin is the pid of the shell plugin under host, or 0.
func shellPlugin(t *testing.T, host int) int {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(st, ')')
		f := bytes.Fields(st[i+1:])
		if len(f) < 2 || string(f[1]) != strconv.Itoa(host) {
			continue
		}
		cl, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if bytes.Contains(cl, []byte("serve\x00shell")) {
			return pid
		}
	}
	return 0
}

// TestCommandsCannotReadTheHostsSecrets starts the host with a secret in
// its environment: no command reads it, from /proc or otherwise, and no
// command sees the plugins' internal variables.
func TestCommandsCannotReadTheHostsSecrets(t *testing.T) {
	t.Parallel()
	root := project(t)
	secret := "hostsecret-" + nonce(t)
	s := startStdioEnv(t, []string{"RAMABANA_TEST_SECRET=" + secret}, root, "--write")
	host := s.cmd.Process.Pid
	var c tally
	for name, command := range map[string]string{
		"host environ":       fmt.Sprintf("cat /proc/%d/environ", host),
		"every environ":      "for p in /proc/[0-9]*; do cat $p/environ; echo; done 2>/dev/null",
		"host memory":        fmt.Sprintf("grep -a -c %s /proc/%d/mem 2>&1; head -c 100 /proc/%d/cmdline", secret, host, host),
		"parent environ":     "cat /proc/$PPID/environ; cat /proc/1/environ",
		"own environment":    "env",
		"plugin environment": "cat /proc/$(ps -o ppid= -p $PPID | tr -d ' ')/environ 2>&1",
	} {
		res, err := call(t, s.session, "run_command", map[string]any{"command": command})
		out := resultText(res, err)
		c.held(!strings.Contains(out, secret), "%s: the command read the host's secret", name)
		for _, v := range []string{"PLUGIN_UNIX_SOCKET_DIR", "RAMABANA_PLUGIN_MAGIC_COOKIE", "PLUGIN_PROTOCOL_VERSIONS", "PLUGIN_MIN_PORT"} {
			if name == "own environment" {
				c.held(!strings.Contains(out, v+"="), "%s: the command sees %s", name, v)
			}
		}
	}
	c.report(t, "host secrets")
}

// TestPluginSocketsAnswerOnlyTheirHost plays a program of the same user (a
// shell command could be one) that finds the plugins' sockets and calls
// them directly, to describe them with a host context of its own (every
// folder served, writes and commands allowed) and to call their tools: every
// RPC is refused, and the server's own calls stay confined afterwards.
func TestPluginSocketsAnswerOnlyTheirHost(t *testing.T) {
	t.Parallel()
	a := newArena(t)
	s := startStdio(t, a.root, "--write")
	// Start three plugins (each starts at its first call): files, git, shell.
	started := []string{"view_file", "git_status", "run_command"}
	for _, tool := range started {
		args := map[string]map[string]any{"view_file": {"path": "pkg/ok.txt"}, "git_status": {}, "run_command": {"command": "true"}}[tool]
		_, _ = call(t, s.session, tool, args)
	}
	dir := filepath.Join(os.TempDir(), "ramabana-"+strconv.Itoa(os.Getuid()), strconv.Itoa(s.cmd.Process.Pid))
	var sockets []string
	for deadline := time.Now().Add(time.Minute); len(sockets) < len(started); time.Sleep(50 * time.Millisecond) {
		sockets = sockets[:0]
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type()&fs.ModeSocket != 0 {
				sockets = append(sockets, p)
			}
			return nil
		})
		if time.Now().After(deadline) {
			t.Fatalf("found %d plugin sockets under %s, want one per plugin started; server log:\n%s", len(sockets), dir, s.stderr)
		}
	}
	var c tally
	hostile := sdk.Host{Roots: []string{"/"}, ReadOutside: true, Write: true, Commands: true, NoSandbox: true}
	for _, sock := range sockets {
		conn, err := grpc.NewClient("unix://"+sock, append(pluginrpc.DialOptions(), grpc.WithTransportCredentials(insecure.NewCredentials()))...)
		if err != nil {
			t.Fatal(err)
		}
		rogue := pluginclient.Dial(conn)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, derr := rogue.Describe(ctx, hostile)
		c.held(derr != nil && strings.Contains(derr.Error(), "answers only the host that launched it"), "Describe through %s: %v", sock, derr)
		res, cerr := rogue.Call(ctx, &sdk.Call{Tool: "create_file", Arguments: json.RawMessage(`{"path":"` + filepath.Join(a.outside, "rogue.txt") + `","content":"x"}`)}, nil)
		c.held(cerr != nil, "Call through %s: %v %v", sock, res, cerr)
		cancel()
		_ = conn.Close()
	}
	res, err := call(t, s.session, "create_file", map[string]any{"path": filepath.Join(a.outside, "after.txt"), "content": "x"})
	c.held(err != nil || res.IsError, "create_file outside after the rogue calls: %s", resultText(res, err))
	_, statErr := os.Stat(filepath.Join(a.outside, "rogue.txt"))
	c.held(errors.Is(statErr, fs.ErrNotExist), "a rogue call wrote outside")
	c.report(t, "plugin sockets")
}
