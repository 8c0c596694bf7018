package scaffold_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// serverBin is ramabana-mcp, built once.
var serverBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ramabana-scaffold")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	serverBin = filepath.Join(dir, "ramabana-mcp")
	code := 1
	if err := proctest.Build(serverBin, nil, "github.com/ramabana/ramabana-mcp/cmd/ramabana-mcp"); err != nil {
		fmt.Fprintf(os.Stderr, "build ramabana-mcp: %v\n", err)
	} else {
		code = m.Run()
	}
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// requireKits makes a missing toolchain a failure rather than a skip: CI
// sets it, since it installs every language's.
const requireKits = "RAMABANA_REQUIRE_KITS"

// toolchains say what each language's plugin needs to test and build, as
// a command that fails without it.
var toolchains = map[string][]string{
	"go":         {"go", "version"},
	"python":     {"/usr/bin/python3", "-c", "import grpc, google.protobuf"},
	"typescript": {"npm", "--version"},
}

// A new plugin in each language goes from `plugin new` to a call through
// the server by the very commands `plugin new` prints: its own test, its
// build, `plugin check` (every check holds) and `plugin install`; then a
// client of the server lists its tool and calls it.
func TestNewPluginFromScaffoldToACall(t *testing.T) {
	for _, lang := range []string{"go", "python", "typescript"} {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			if out, err := exec.Command(toolchains[lang][0], toolchains[lang][1:]...).CombinedOutput(); err != nil {
				proctest.Missing(t, requireKits, fmt.Sprintf("%s plugins need %v: %v %s", lang, toolchains[lang], err, out))
			}
			name := map[string]string{"go": "hello-go", "python": "hello-py", "typescript": "hello-ts"}[lang]
			tmp := t.TempDir()
			dir := filepath.Join(tmp, "plugin")
			cfgHome := filepath.Join(tmp, "config")
			env := append(os.Environ(),
				"PATH="+filepath.Dir(serverBin)+string(os.PathListSeparator)+os.Getenv("PATH"),
				"XDG_CONFIG_HOME="+cfgHome, // where plugin install puts it, and the server finds it
			)
			out := run(t, tmp, env, serverBin, "plugin", "new", "--lang", lang, name, dir)
			steps := nextSteps(t, out)
			if len(steps) < 3 || !slices.ContainsFunc(steps, func(s string) bool { return strings.HasPrefix(s, "ramabana-mcp plugin check ") }) ||
				!strings.HasPrefix(steps[len(steps)-1], "ramabana-mcp plugin install ") {
				t.Fatalf("plugin new printed next steps %q; want the build, then plugin check, then plugin install", steps)
			}
			for _, step := range steps {
				out := run(t, dir, env, "bash", "-c", step)
				if strings.HasPrefix(step, "ramabana-mcp plugin check ") && !strings.Contains(out, "checks hold") {
					t.Errorf("plugin check said:\n%s", out)
				}
			}
			tool := strings.ReplaceAll(name, "-", "_") + "_greet"
			if got := callThroughServer(t, env, dir, tool); got != "Hello, Ada!" {
				t.Errorf("%s through the server = %q; want %q", tool, got, "Hello, Ada!")
			}
		})
	}
}

// run runs a command in dir and fails the test, with its output, when it
// fails.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out.String())
	}
	return out.String()
}

// nextSteps are the commands plugin new printed under "next:", without
// the cd into the new folder.
func nextSteps(t *testing.T, out string) []string {
	t.Helper()
	_, after, ok := strings.Cut(out, "next:\n")
	if !ok {
		t.Fatalf("plugin new printed no next steps:\n%s", out)
	}
	var steps []string
	for _, line := range strings.Split(after, "\n") {
		step := strings.TrimSpace(line)
		if step == "" || strings.HasPrefix(step, "cd ") {
			continue
		}
		steps = append(steps, step)
	}
	return steps
}

// callThroughServer starts ramabana-mcp over stdio as a client would,
// finds tool among its tools and calls it for Ada.
func callThroughServer(t *testing.T, env []string, root, tool string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.Command(serverBin, "--root", root)
	cmd.Env = env
	client := mcp.NewClient(&mcp.Implementation{Name: "scaffold-test", Version: "0"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	var names []string
	for tl, err := range session.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, tool) {
		t.Fatalf("the server lists %v; want %s among them", names, tool)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"name": "Ada"}})
	if err != nil {
		t.Fatal(err)
	}
	var text []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	if res.IsError {
		t.Fatalf("%s answered an error: %v", tool, text)
	}
	return strings.Join(text, "\n")
}
