package memory_test

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/sdk"
)

func TestRemember(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	text := e.ok(t, "remember", map[string]any{"content": "  Use tabs in Go files.\n", "tags": []string{"Style", "go", "GO"}})
	want := fmt.Sprintf("Remembered as id 1 (scope %s; tags go, style).", e.roots[0])
	if text != want {
		t.Errorf("got %q, want %q", text, want)
	}
	res := e.call(t, "list_memories", map[string]any{})
	if got := res.Content[1].Text; !strings.HasPrefix(got, fmt.Sprintf("id 1 · scope %s · tags go, style · saved ", e.roots[0])) ||
		!strings.HasSuffix(got, " UTC\nUse tabs in Go files.") {
		t.Errorf("stored memory shows as %q; want trimmed content and normalized tags", got)
	}
}

func TestRememberDuplicates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.remember(t, "Deploys go through make release.", []string{"deploy"}, "")

	text := e.ok(t, "remember", map[string]any{"content": "Deploys go through make release."})
	if want := fmt.Sprintf("Already remembered as id %d (same content, scope %s; tags deploy); not stored again.", id, e.roots[0]); text != want {
		t.Errorf("same content: got %q, want %q", text, want)
	}
	text = e.ok(t, "remember", map[string]any{"content": "Deploys go through make release.", "tags": []string{"release", "deploy"}})
	if !strings.HasPrefix(text, fmt.Sprintf("Already remembered as id %d ", id)) || !strings.HasSuffix(text, "Added tags release to it.") {
		t.Errorf("same content, new tag: got %q", text)
	}
	if got := e.recall(t, map[string]any{"query": "deploys", "tags": []string{"release"}}); !cmp.Equal(got, []int64{id}) {
		t.Errorf("the added tag does not filter: recall found %v", got)
	}
	if got := e.recall(t, map[string]any{"query": "release"}); !cmp.Equal(got, []int64{id}) {
		t.Errorf("recall found %v, want the one memory", got)
	}

	// The same content in another scope is another memory.
	global := e.remember(t, "Deploys go through make release.", nil, "global")
	if global == id {
		t.Errorf("global copy got the project memory's id %d", id)
	}
	if diff := cmp.Diff([]int64{global, id}, e.all(t)); diff != "" {
		t.Errorf("memories (-want +got):\n%s", diff)
	}
}

func TestRememberBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	outside := tempDir(t)
	tests := map[string]struct {
		args map[string]any
		want string
	}{
		"no content":        {map[string]any{}, `invalid arguments for remember: "content" is required; remember takes: content, tags, scope`},
		"blank content":     {map[string]any{"content": " \n\t "}, "content is empty"},
		"too long":          {map[string]any{"content": strings.Repeat("é", 20001)}, "invalid arguments for remember: \"content\" must be at most 20000 characters long (got 20001)"},
		"empty tag":         {map[string]any{"content": "x", "tags": []string{"ok", " "}}, "tag 2 is empty"},
		"tag with space":    {map[string]any{"content": "x", "tags": []string{"code style"}}, `tag "code style" holds a space or comma; a tag is one word: join words with '-' ("code-style")`},
		"tag with comma":    {map[string]any{"content": "x", "tags": []string{"a,b"}}, "holds a space or comma"},
		"long tag":          {map[string]any{"content": "x", "tags": []string{strings.Repeat("t", 65)}}, "longer than 64 characters"},
		"too many tags":     {map[string]any{"content": "x", "tags": manyTags(21)}, "invalid arguments for remember: \"tags\" must have at most 20 items (got 21)"},
		"scope outside":     {map[string]any{"content": "x", "scope": outside}, "outside the served folders"},
		"scope all":         {map[string]any{"content": "x", "scope": "all"}, `scope "all" is for recall and list_memories`},
		"unknown argument":  {map[string]any{"content": "x", "scopes": "global"}, `invalid arguments for remember: unknown argument "scopes"; did you mean "scope"? remember takes: content, tags, scope`},
		"content not text":  {map[string]any{"content": 12}, "invalid arguments for remember: \"content\" must be a string, got 12"},
		"scope outside rel": {map[string]any{"content": "x", "scope": "../.."}, "outside the served folders"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if text := e.fail(t, "remember", tc.args); !strings.Contains(text, tc.want) {
				t.Errorf("got %q, want it to contain %q", text, tc.want)
			}
		})
	}
	t.Cleanup(func() {
		if got := e.all(t); len(got) != 0 {
			t.Errorf("bad input stored memories %v", got)
		}
	})
}

func TestRememberScope(t *testing.T) {
	t.Parallel()
	a, b := project(t, "a"), project(t, "b")
	e := connect(t, tempDir(t), a, b)
	sub := filepath.Join(b, "src", "pkg")
	tests := map[string]struct {
		scope, want string
	}{
		"default":           {"", a},
		"project":           {"project", a},
		"global":            {"GLOBAL", "global"},
		"second folder":     {b, b},
		"inside second":     {sub, b},
		"relative to first": {"docs", a},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			text := e.ok(t, "remember", map[string]any{"content": "scope test " + name, "scope": tc.scope})
			if !strings.Contains(text, "(scope "+tc.want+")") {
				t.Errorf("got %q, want scope %s", text, tc.want)
			}
		})
	}
}

func TestRememberNoFolder(t *testing.T) {
	t.Parallel()
	e := connect(t, tempDir(t))
	text := e.ok(t, "remember", map[string]any{"content": "prefers short answers"})
	if want := "Remembered as id 1 (scope global (no folder is served, so the memory is global))."; text != want {
		t.Errorf("got %q, want %q", text, want)
	}
	if text := e.fail(t, "remember", map[string]any{"content": "x", "scope": "project"}); !strings.Contains(text, "none is served") {
		t.Errorf("got %q", text)
	}
	if got := e.recall(t, map[string]any{"query": "short answers"}); !cmp.Equal(got, []int64{1}) {
		t.Errorf("recall found %v", got)
	}
}

func manyTags(n int) []string {
	tags := make([]string, n)
	for i := range tags {
		tags[i] = fmt.Sprintf("t%d", i)
	}
	return tags
}

// TestRememberParallel: calls in flight at once each get their own memory.
func TestRememberParallel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const n = 16
	got := make(chan int64, n)
	for i := range n {
		go func() {
			// Not e.call: it may call t.Fatal, which only the test's
			// goroutine may.
			args := fmt.Appendf(nil, `{"content": "parallel note %d"}`, i)
			res, err := e.g.Call(t.Context(), &sdk.Call{Tool: "remember", Arguments: args}, nil)
			if err != nil {
				t.Errorf("remember %d: %v", i, err)
				got <- 0
				return
			}
			m := rememberedRE.FindStringSubmatch(res.Text())
			if res.IsError || m == nil {
				t.Errorf("remember %d: %s", i, res.Text())
				got <- 0
				return
			}
			id, _ := strconv.ParseInt(m[1], 10, 64)
			got <- id
		}()
	}
	seen := map[int64]bool{}
	for range n {
		seen[<-got] = true
	}
	if len(seen) != n || seen[0] {
		t.Errorf("ids %v, want %d distinct", seen, n)
	}
	if all := e.all(t); len(all) != n {
		t.Errorf("%d memories listed, want %d", len(all), n)
	}
}
