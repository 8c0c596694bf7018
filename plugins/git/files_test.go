package git_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ramabana/ramabana-mcp/plugins/git"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// secretLine is what a credentials file outside the roots holds; no tool
// result may ever show it.
const secretLine = "https://alice:TOKEN@github.com"

// fileClass is one way repository config names a file outside the roots.
type fileClass struct {
	// config is set in the repository's config; SECRET in a value is the
	// secret file's path, ~SECRET a path under $HOME.
	config [][2]string
	// extra is written to the secret file after the credentials line.
	extra string
	// body, when set, is the whole secret file instead.
	body string
	// files are written into the repository.
	files map[string]string
	// refuse says every call is refused (an include): by the guard, or by
	// git when the file is not config (it names the file, not its lines).
	refuse bool
	// check looks at one call's result for a sign the file was read.
	check func(tool, text string) string
}

func fileClasses() map[string]fileClass {
	return map[string]fileClass{
		"blame.ignoreRevsFile":          {config: [][2]string{{"blame.ignoreRevsFile", "SECRET"}}},
		"blame.ignoreRevsFile ~":        {config: [][2]string{{"blame.ignoreRevsFile", "~SECRET"}}},
		"blame.ignoreRevsFile relative": {config: [][2]string{{"blame.ignoreRevsFile", "../../outside/secret"}}},
		"blame.ignoreRevsFile included": {config: [][2]string{{"include.path", "../inc.cfg"}}, files: map[string]string{"inc.cfg": "[blame]\n\tignoreRevsFile = SECRET\n"}},
		"mailmap.file":                  {config: [][2]string{{"mailmap.file", "SECRET"}, {"log.mailmap", "true"}}, extra: "Evil TOKEN <ada@example.com>\n"},
		"core.excludesFile": {config: [][2]string{{"core.excludesFile", "SECRET"}}, extra: "new.t\n", files: map[string]string{"new.t": "n\n"},
			check: func(tool, text string) string {
				if tool == "git_status" && !strings.Contains(text, "new.t") {
					return "new.t is ignored: the excludes file was read"
				}
				return ""
			}},
		"core.attributesFile": {config: [][2]string{{"core.attributesFile", "SECRET"}}, extra: "*.t -diff\n",
			check: func(tool, text string) string {
				if tool == "git_diff" && strings.Contains(text, "Binary") {
					return "a.t diffed as binary: the attributes file was read"
				}
				return ""
			}},
		// git commit -m compares the message with the template: "m" would
		// abort it.
		"commit.template":            {config: [][2]string{{"commit.template", "SECRET"}}, extra: "m\n"},
		"diff.orderFile":             {config: [][2]string{{"diff.orderFile", "SECRET"}}},
		"gpg.ssh.allowedSignersFile": {config: [][2]string{{"gpg.format", "ssh"}, {"gpg.ssh.allowedSignersFile", "SECRET"}, {"gpg.ssh.revocationFile", "SECRET"}}},
		"include.path":               {config: [][2]string{{"include.path", "SECRET"}}, refuse: true},
		"include.path ~":             {config: [][2]string{{"include.path", "~SECRET"}}, refuse: true},
		"includeIf.path":             {config: [][2]string{{"includeIf.gitdir:/.path", "SECRET"}}, refuse: true},
		"include.path of config":     {config: [][2]string{{"include.path", "SECRET"}}, body: "[user]\n\tname = TOKEN\n", refuse: true},
		"nested include":             {config: [][2]string{{"include.path", "../inc.cfg"}}, files: map[string]string{"inc.cfg": "[include]\n\tpath = SECRET\n"}, refuse: true},
	}
}

// TestNoReadsOutside names a file outside the served folder, holding a
// credentials line, in every repository config key that makes git read a
// file, and calls every tool without commands and with them: no result
// shows the secret or a sign that git read it, and an include of it is
// refused. As in TestNoProgramsFromRepository, the read tools run under a
// host that does not allow writes and the write tools then under one that
// does, on the same repository.
func TestNoReadsOutside(t *testing.T) {
	t.Parallel()
	var tried, held, broken atomic.Int64
	t.Cleanup(func() {
		t.Logf("file-read cases: %d tried, %d held, %d broken", tried.Load(), held.Load(), broken.Load())
	})
	modes := map[string]sdk.Host{"no commands": {}, "commands": {Commands: true}}
	for name, fc := range fileClasses() {
		for mode, host := range modes {
			t.Run(name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				e := newTrustEnv(t)
				secret := e.secret(t, name+mode, fc)
				e.applyFiles(t, fc, secret)
				host.Roots = []string{e.root}
				for _, write := range []bool{false, true} {
					host.Write = write
					g, _ := sdktest.Connect(t, git.New(), host)
					for _, tc := range everyTool {
						if tc.write != write {
							continue
						}
						tried.Add(1)
						res := tc.run(t, g)
						text := res.Text()
						var bad []string
						if strings.Contains(text, "TOKEN") {
							bad = append(bad, "shows the secret")
						}
						switch {
						case fc.refuse && (!res.IsError || !strings.Contains(text, "outside the served folders") && !strings.Contains(text, "bad config line 1 in file")):
							// A file that is not config makes git itself refuse,
							// naming the file only.
							bad = append(bad, "not refused")
						case !fc.refuse && res.IsError:
							bad = append(bad, "error result")
						}
						if fc.check != nil {
							if msg := fc.check(tc.tool, text); msg != "" {
								bad = append(bad, msg)
							}
						}
						if len(bad) > 0 {
							t.Errorf("%s %v (write %v): %s:\n%s", tc.tool, tc.args, write, strings.Join(bad, ", "), text)
							broken.Add(1)
							continue
						}
						held.Add(1)
					}
				}
			})
		}
	}
}

// TestReadsOutsideAllowed checks the test's own premise: with reads
// outside allowed, git blame does read the file, and shows its content.
func TestReadsOutsideAllowed(t *testing.T) {
	t.Parallel()
	e := newTrustEnv(t)
	fc := fileClasses()["blame.ignoreRevsFile"]
	e.applyFiles(t, fc, e.secret(t, "allowed", fc))
	g, _ := sdktest.Connect(t, git.New(), sdk.Host{Roots: []string{e.root}, ReadOutside: true})
	res := sdktest.Call(t, g, "git_blame", map[string]any{"repo": "repo", "path": "a.t"})
	if !strings.Contains(res.Text(), "TOKEN") {
		t.Errorf("git_blame with reads outside: %q; want git's error quoting the file", res.Text())
	}
}

// secret writes the credentials file outside the served folder, and one
// under $HOME (outside too) for ~ paths; it returns the first.
func (e *trustEnv) secret(t *testing.T, name string, fc fileClass) string {
	t.Helper()
	body := []byte(secretLine + "\n" + fc.extra)
	if fc.body != "" {
		body = []byte(fc.body)
	}
	p := filepath.Join(e.base, "outside", "secret")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, body, 0o644); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(os.Getenv("HOME"), homeName(e))
	if err := os.WriteFile(home, body, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(home) })
	return p
}

// homeName is the secret's name under $HOME, unique to the test.
func homeName(e *trustEnv) string {
	return "secret-" + strings.ReplaceAll(strings.TrimPrefix(e.base, "/"), "/", "-")
}

// applyFiles sets a file class up, with its placeholders filled in.
func (e *trustEnv) applyFiles(t *testing.T, fc fileClass, secret string) {
	t.Helper()
	fill := func(s string) string {
		s = strings.ReplaceAll(s, "~SECRET", "~/"+homeName(e))
		return strings.ReplaceAll(s, "SECRET", secret)
	}
	files := map[string]string{}
	for k, v := range fc.files {
		files[k] = fill(v)
	}
	e.write(t, files)
	for _, kv := range fc.config {
		key := kv[0]
		if strings.HasPrefix(key, "includeIf.gitdir:/") {
			key = fmt.Sprintf("includeIf.gitdir:%s/.path", e.dir)
		}
		gitT(t, e.dir, "config", key, fill(kv[1]))
	}
}
