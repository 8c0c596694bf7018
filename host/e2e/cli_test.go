package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ramabana/ramabana-mcp/host/internal/plugincli"
)

// runBinary runs the built binary with args, with no plugin dirs beyond
// its own config dir, and returns its exit status and output.
func runBinary(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "RAMABANA_PLUGIN_PATH=")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("run %q: %v", args, err)
	}
	return code, out.String(), errOut.String()
}

func TestUsage(t *testing.T) {
	t.Parallel()
	// Every flag is in the usage: cmd/ramabana-mcp's TestFlagsInUsage.
	want := []string{"--root", "--write", "--pii", "--transport"}
	for _, c := range plugincli.Commands {
		want = append(want, "ramabana-mcp plugin "+c.Synopsis)
	}
	want = append(want, "ramabana-mcp help", "README.md", "--transport http")
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"--root", ".", "-help"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runBinary(t, args...)
			if code != 0 || stderr != "" {
				t.Errorf("exit %d, stderr %q; want 0 and nothing", code, stderr)
			}
			for _, w := range want {
				if !strings.Contains(stdout, w) {
					t.Errorf("the usage lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
}

func TestPluginUsage(t *testing.T) {
	t.Parallel()
	want := []string{"--cfg", "--plugins", "--plugin-env", "--start-timeout"}
	for _, c := range plugincli.Commands {
		want = append(want, c.Synopsis)
	}
	for _, args := range [][]string{{"help", "plugin"}, {"plugin", "--help"}, {"plugin", "help"}, {"plugin", "list", "-h"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runBinary(t, args...)
			if code != 0 || stderr != "" {
				t.Errorf("exit %d, stderr %q; want 0 and nothing", code, stderr)
			}
			for _, w := range want {
				if !strings.Contains(stdout, w) {
					t.Errorf("the plugin usage lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
}

// TestBadFlagValues runs the binary with each flag given a value it
// refuses: a usage error (status 2) that says what a good value is, on
// stderr with a pointer to the usage, and nothing on stdout.
func TestBadFlagValues(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		args []string
		want string
		code int // 2 unless set
	}{
		"unknown flag":               {args: []string{"--frob"}, want: "flag provided but not defined: -frob"},
		"stray argument":             {args: []string{"serve"}, want: `unexpected argument "serve"; the subcommands are help and plugin`},
		"help topic":                 {args: []string{"help", "frob"}, want: `help "frob": no such topic; use help, help plugin or help upstream`},
		"plugin command":             {args: []string{"plugin", "frob"}, want: "unknown command; use list, install PATH, remove NAME, verify, check PATH or new NAME [DIR]"},
		"plugin, no command":         {args: []string{"plugin"}, want: "a command is missing"},
		"plugin serve, no group":     {args: []string{"plugin", "serve"}, want: "usage: ramabana-mcp plugin serve <group>"},
		"plugin serve, unknown":      {args: []string{"plugin", "serve", "frob"}, want: `no bundled group "frob" (have code, files,`},
		"plugin start-timeout":       {args: []string{"plugin", "list", "--start-timeout", "soon"}, want: "want a duration such as"},
		"transport":                  {args: []string{"--transport", "carrier-pigeon"}, want: "use stdio, http or sse"},
		"sandbox":                    {args: []string{"--sandbox", "maybe"}, want: "use on or off"},
		"pii":                        {args: []string{"--pii", "hide"}, want: "want off, redact or refuse"},
		"pii-ner alone":              {args: []string{"--pii-ner"}, want: "--pii-ner needs --pii redact or --pii refuse"},
		"pii-ner, pii off":           {args: []string{"--pii", "off", "--pii-ner"}, want: "--pii-ner needs --pii redact or --pii refuse"},
		"vault alone":                {args: []string{"--vault"}, want: "--vault needs --pii redact or --pii refuse"},
		"vault, pii off":             {args: []string{"--pii", "off", "--vault"}, want: "--vault needs --pii redact or --pii refuse"},
		"tools":                      {args: []string{"--tools", "some"}, want: "use all or search"},
		"log-level":                  {args: []string{"--log-level", "loud"}, want: "use debug, info, warn or error"},
		"web":                        {args: []string{"--web=maybe"}, want: `invalid boolean value "maybe" for -web`},
		"start-timeout":              {args: []string{"--start-timeout", "soon"}, want: "want a duration such as 500ms, 10s or 1m30s"},
		"start-timeout negative":     {args: []string{"--start-timeout", "-1s"}, want: "want a duration such as"},
		"upstream-wait":              {args: []string{"--upstream-wait", "5"}, want: "want a duration such as"},
		"upstream-connect-timeout":   {args: []string{"--upstream-connect-timeout", "x"}, want: "want a duration such as"},
		"max-steps":                  {args: []string{"--max-steps", "-1"}, want: "want a whole number, 0 or more"},
		"max-retries":                {args: []string{"--max-retries", "two"}, want: "want a whole number, 0 or more"},
		"context-budget":             {args: []string{"--context-budget", "1e6"}, want: "want a whole number, 0 or more"},
		"addr":                       {args: []string{"--addr", "8765"}, want: `--addr "8765": want HOST:PORT`},
		"allow-origin":               {args: []string{"--transport", "http", "--allow-origin", "localhost"}, want: `--allow-origin "localhost": want scheme://host[:port]`},
		"open without token":         {args: []string{"--transport", "http", "--addr", "0.0.0.0:0"}, want: "reachable from other machines"},
		"group typo":                 {args: []string{"--groups", "exhsh"}, want: `--groups: no group "exhsh"; the groups are agent, code, exhash, files,`},
		"group typo, opted out":      {args: []string{"--groups", "exhash,-shel"}, want: `--groups: no group "shel"`},
		"group name":                 {args: []string{"--groups", "Bad Name"}, want: `--groups: "Bad Name" is not a group name`},
		"group in and out":           {args: []string{"--groups", "exhash,-exhash"}, want: `"exhash" is both opted in and out`},
		"root missing (not a usage)": {args: []string{"--root", "/no/such/dir"}, want: "/no/such/dir", code: 1},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args := tc.args
			if args[0] != "plugin" && args[0] != "help" {
				args = append([]string{"--root", t.TempDir(), "--cfg", t.TempDir()}, args...)
			}
			code, stdout, stderr := runBinary(t, args...)
			want := tc.code
			if want == 0 {
				want = 2
			}
			if code != want {
				t.Errorf("exit %d, want %d; stderr %q", code, want, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if !strings.Contains(stderr, "ramabana-mcp: ") || !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q, want an error line with %q", stderr, tc.want)
			}
			if (code == 2) != strings.Contains(stderr, "--help for usage") {
				t.Errorf("stderr %q: a usage error, and only one, points to --help", stderr)
			}
		})
	}
}

// TestGroupsOfInstalledPlugins: a name no bundled group has may be one an
// installed plugin declares: the server starts, and warns once the plugins
// have described themselves if none did.
func TestGroupsOfInstalledPlugins(t *testing.T) {
	t.Parallel()
	dir := pluginDir(t, "echo") // declares echo and echo-extra
	for name, tc := range map[string]struct {
		groups string
		warn   bool
	}{
		"declared":   {groups: "-echo-extra", warn: false},
		"undeclared": {groups: "exhash,echo-extar", warn: true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := startStdio(t, project(t), "--plugins", dir, "--groups", tc.groups)
			if !s.logged("msg=serving") {
				t.Fatalf("not serving; stderr:\n%s", s.stderr)
			}
			warned := strings.Contains(s.stderr.String(), `msg="--groups names no group: ignored" unknown=echo-extar groups=`)
			if warned != tc.warn {
				t.Errorf("warned %v, want %v; stderr:\n%s", warned, tc.warn, s.stderr)
			}
		})
	}
}
