package memory_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/plugins/memory"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// env is the memory plugin connected over gRPC, serving folders, with a
// config dir of its own (or shared with another env).
type env struct {
	cfg   string
	roots []string
	g     sdk.Group
}

// newEnv makes a config dir and one served folder, and connects.
func newEnv(t *testing.T) *env {
	t.Helper()
	return connect(t, tempDir(t), project(t, "proj"))
}

// tempDir is a fresh directory with symlinks resolved, as roots are.
func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// project makes a served folder.
func project(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(tempDir(t), name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// connect connects a fresh plugin serving roots with config dir cfg.
func connect(t *testing.T, cfg string, roots ...string) *env {
	t.Helper()
	g, _ := sdktest.Connect(t, memory.New(), sdk.Host{Roots: roots, ConfigDir: cfg})
	return &env{cfg: cfg, roots: roots, g: g}
}

// call calls a tool and returns its result.
func (e *env) call(t *testing.T, tool string, args any) *sdk.Result {
	t.Helper()
	return sdktest.Call(t, e.g, tool, args)
}

// ok calls a tool, fails the test on an error result, and returns its text.
func (e *env) ok(t *testing.T, tool string, args any) string {
	t.Helper()
	res := e.call(t, tool, args)
	if res.IsError {
		t.Fatalf("%s %v: error result: %s", tool, args, res.Text())
	}
	return res.Text()
}

// fail calls a tool, fails the test unless the result is an error, and
// returns its text.
func (e *env) fail(t *testing.T, tool string, args any) string {
	t.Helper()
	res := e.call(t, tool, args)
	if !res.IsError {
		t.Fatalf("%s %v: want an error result, got: %s", tool, args, res.Text())
	}
	return res.Text()
}

var rememberedRE = regexp.MustCompile(`^(?:Remembered|Already remembered) as id (\d+) `)

// remember stores content with tags (and scope, when given) and returns its id.
func (e *env) remember(t *testing.T, content string, tags []string, scope string) int64 {
	t.Helper()
	args := map[string]any{"content": content}
	if tags != nil {
		args["tags"] = tags
	}
	if scope != "" {
		args["scope"] = scope
	}
	text := e.ok(t, "remember", args)
	m := rememberedRE.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("remember: no id in %q", text)
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	return id
}

var headerRE = regexp.MustCompile(`^id (\d+) · `)

// ids returns the ids of a recall or list_memories result, in order: one
// per content block after the first (the summary).
func ids(t *testing.T, res *sdk.Result) []int64 {
	t.Helper()
	var out []int64
	for i, c := range res.Content {
		m := headerRE.FindStringSubmatch(c.Text)
		if i == 0 {
			if m != nil {
				t.Fatalf("first block is a memory, want a summary: %q", c.Text)
			}
			continue
		}
		if m == nil {
			t.Fatalf("block %d has no memory header: %q", i, c.Text)
		}
		id, _ := strconv.ParseInt(m[1], 10, 64)
		out = append(out, id)
	}
	return out
}

// recall runs recall and returns the ids found, best first.
func (e *env) recall(t *testing.T, args map[string]any) []int64 {
	t.Helper()
	res := e.call(t, "recall", args)
	if res.IsError {
		t.Fatalf("recall %v: error result: %s", args, res.Text())
	}
	return ids(t, res)
}

// all lists every memory in scope "all" and returns their ids.
func (e *env) all(t *testing.T) []int64 {
	t.Helper()
	res := e.call(t, "list_memories", map[string]any{"scope": "all", "limit": 200})
	if res.IsError {
		t.Fatalf("list_memories: %s", res.Text())
	}
	return ids(t, res)
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	_, d := sdktest.Connect(t, memory.New(), sdk.Host{Roots: []string{t.TempDir()}, ConfigDir: t.TempDir()})
	type tool struct {
		Name, Kind string
		Required   []string
		Hints      sdk.Hints
	}
	type group struct {
		Name, Mode string
		Tools      []tool
	}
	var got []group
	for _, g := range d.Groups {
		gg := group{Name: g.Name, Mode: g.Mode.String()}
		for _, s := range g.Tools {
			if s.Title == "" || len(s.Description) < 80 {
				t.Errorf("%s: title %q, description of %d bytes; want both", s.Name, s.Title, len(s.Description))
			}
			var schema struct {
				Type     string   `json:"type"`
				Required []string `json:"required"`
			}
			if err := json.Unmarshal(s.InputSchema, &schema); err != nil || schema.Type != "object" {
				t.Errorf("%s: input schema %s: %v", s.Name, s.InputSchema, err)
			}
			gg.Tools = append(gg.Tools, tool{Name: s.Name, Kind: s.Kind.String(), Required: schema.Required, Hints: s.Hints()})
		}
		got = append(got, gg)
	}
	want := []group{{Name: "memory", Mode: "default", Tools: []tool{
		{Name: "remember", Kind: "write", Required: []string{"content"}, Hints: sdk.Hints{Idempotent: true}},
		{Name: "forget", Kind: "write", Hints: sdk.Hints{Destructive: true, Idempotent: true}},
		{Name: "recall", Kind: "read", Required: []string{"query"}, Hints: sdk.Hints{ReadOnly: true, Idempotent: true}},
		{Name: "list_memories", Kind: "read", Hints: sdk.Hints{ReadOnly: true, Idempotent: true}},
	}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("description (-want +got):\n%s", diff)
	}
	if d.Name != "memory" || d.Version != memory.Version {
		t.Errorf("plugin %s %s", d.Name, d.Version)
	}
}

func TestConfigDir(t *testing.T) {
	t.Parallel()
	t.Run("empty", func(t *testing.T) {
		t.Parallel()
		e := connect(t, "", project(t, "p"))
		for tool, args := range map[string]any{
			"remember":      map[string]any{"content": "x"},
			"recall":        map[string]any{"query": "x"},
			"list_memories": map[string]any{},
			"forget":        map[string]any{"id": 1},
		} {
			if text := e.fail(t, tool, args); !strings.Contains(text, "no config dir") {
				t.Errorf("%s: %q does not say the config dir is missing", tool, text)
			}
		}
	})
	t.Run("relative", func(t *testing.T) {
		t.Parallel()
		e := connect(t, "cfg", project(t, "p"))
		if text := e.fail(t, "list_memories", map[string]any{}); !strings.Contains(text, "not an absolute path") {
			t.Errorf("got %q", text)
		}
	})
	t.Run("permissions", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.remember(t, "the build needs Go 1.26", nil, "")
		dir := filepath.Join(e.cfg, "memory")
		want := map[string]fs.FileMode{dir: fs.ModeDir | 0o700, filepath.Join(dir, "memory.db"): 0o600}
		if _, err := os.Stat(filepath.Join(dir, "memory.db-wal")); err == nil {
			want[filepath.Join(dir, "memory.db-wal")] = 0o600
		}
		got := map[string]fs.FileMode{}
		for p := range want {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			got[p] = fi.Mode()
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("modes (-want +got):\n%s", diff)
		}
	})
	t.Run("changes", func(t *testing.T) {
		t.Parallel()
		root := project(t, "p")
		cfg1, cfg2 := tempDir(t), tempDir(t)
		e := connect(t, cfg1, root)
		e.remember(t, "kept under the first config dir", nil, "")
		listing := func() string {
			return e.ok(t, "list_memories", map[string]any{"scope": "all"})
		}
		if _, err := e.g.Describe(context.Background(), sdk.Host{Roots: []string{root}, ConfigDir: cfg2}); err != nil {
			t.Fatal(err)
		}
		if got := listing(); !strings.HasPrefix(got, "No memories") {
			t.Errorf("new config dir lists %q, want nothing", got)
		}
		e.remember(t, "kept under the second config dir", nil, "")
		if _, err := os.Stat(filepath.Join(cfg2, "memory", "memory.db")); err != nil {
			t.Errorf("second database: %v", err)
		}
		if _, err := e.g.Describe(context.Background(), sdk.Host{Roots: []string{root}, ConfigDir: cfg1}); err != nil {
			t.Fatal(err)
		}
		if got := listing(); !strings.Contains(got, "first config dir") || strings.Contains(got, "second config dir") {
			t.Errorf("first config dir again lists %q", got)
		}
	})
	t.Run("not a database", func(t *testing.T) {
		t.Parallel()
		cfg := tempDir(t)
		if err := os.MkdirAll(filepath.Join(cfg, "memory"), 0o700); err != nil {
			t.Fatal(err)
		}
		junk := strings.Repeat("this is not a database\n", 200)
		if err := os.WriteFile(filepath.Join(cfg, "memory", "memory.db"), []byte(junk), 0o600); err != nil {
			t.Fatal(err)
		}
		e := connect(t, cfg, project(t, "p"))
		text := e.fail(t, "remember", map[string]any{"content": "x"})
		if !strings.Contains(text, "cannot open the memory database") || !strings.Contains(text, filepath.Join(cfg, "memory", "memory.db")) {
			t.Errorf("got %q", text)
		}
		b, err := os.ReadFile(filepath.Join(cfg, "memory", "memory.db"))
		if err != nil || string(b) != junk {
			t.Errorf("the file was changed (%v)", err)
		}
	})
}
