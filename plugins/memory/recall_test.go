package memory_test

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/sdk"
)

func TestRecallRanking(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	unit := e.remember(t, "Run the unit tests with go test ./... before every commit.", nil, "")
	integ := e.remember(t, "Run the integration tests with make integration; they need docker running.", nil, "")
	dockerID := e.remember(t, "The docker daemon runs as root on the CI machines.", nil, "")
	e.remember(t, "The user prefers short commit messages in the imperative mood.", nil, "")

	tests := map[string]struct {
		query string
		want  []int64
	}{
		// integ matches all three words; unit and docker one each.
		"most words first": {"integration tests docker", []int64{integ}},
		// both match "tests"; only unit has "unit" too.
		"unit tests":     {"unit tests", []int64{unit, integ}},
		"one word":       {"daemon", []int64{dockerID}},
		"case and stems": {"DAEMONS", []int64{dockerID}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := e.recall(t, map[string]any{"query": tc.query})
			if len(got) < len(tc.want) || !cmp.Equal(got[:len(tc.want)], tc.want) {
				t.Errorf("recall %q = %v, want it to start with %v", tc.query, got, tc.want)
			}
		})
	}

	// Relevance is shown, 1.00 for the best, and falls from one block to
	// the next.
	res := e.call(t, "recall", map[string]any{"query": "integration tests docker"})
	scoreRE := regexp.MustCompile(`^id \d+ · relevance (\d\.\d\d) · `)
	prev := 1.0
	for _, c := range res.Content[1:] {
		m := scoreRE.FindStringSubmatch(c.Text)
		if m == nil {
			t.Fatalf("no relevance in %q", c.Text)
		}
		s, _ := strconv.ParseFloat(m[1], 64)
		if s > prev {
			t.Errorf("relevance %v after %v: want falling from 1.00", s, prev)
		}
		if c == res.Content[1] && m[1] != "1.00" {
			t.Errorf("best match's relevance %s, want 1.00", m[1])
		}
		prev = s
	}
	if got, want := res.Content[0].Text, `3 memories match "integration tests docker" in project `+e.roots[0]+` and global, best first:`; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}

// A lone match in a small store has a BM25 score near zero; it must not
// read as irrelevant.
func TestRecallLoneMatchRelevance(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.remember(t, "The release train leaves on Thursdays.", nil, "")
	res := e.call(t, "recall", map[string]any{"query": "release"})
	if len(res.Content) != 2 || !strings.Contains(res.Content[1].Text, " · relevance 1.00 · ") {
		t.Errorf("recall of the only memory = %v, want one block with relevance 1.00", res.Content)
	}
}

func TestRecallPrefix(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	deploy := e.remember(t, "The deployment checklist lives in docs/RELEASING.md.", nil, "")
	config := e.remember(t, "Configuration is read from $XDG_CONFIG_HOME/app/settings.toml.", nil, "")
	kube := e.remember(t, "Kubernetes manifests are generated, never edited by hand.", []string{"infrastructure"}, "")
	tests := map[string]struct {
		query string
		want  []int64
	}{
		"prefix of a word":      {"deploy", []int64{deploy}},
		"prefix of a stem":      {"config", []int64{config}},
		"short prefix":          {"kub", []int64{kube}},
		"prefix of a tag":       {"infra", []int64{kube}},
		"word inside path":      {"releasing", []int64{deploy}},
		"stemmed whole word":    {"generating manifest", []int64{kube}},
		"prefix not infix":      {"ployment", nil},
		"one letter is no pref": {"k", nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := e.recall(t, map[string]any{"query": tc.query}); !cmp.Equal(got, tc.want) {
				t.Errorf("recall %q = %v, want %v", tc.query, got, tc.want)
			}
		})
	}
}

func TestRecallTags(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	both := e.remember(t, "Table tests use cmp.Diff.", []string{"go", "testing"}, "")
	goOnly := e.remember(t, "Errors are wrapped with the operation: tests check errors.Is.", []string{"go"}, "")
	py := e.remember(t, "Python tests run under pytest -x.", []string{"python", "testing"}, "")
	tests := map[string]struct {
		tags []string
		want []int64
	}{
		"none":         {nil, []int64{both, goOnly, py}},
		"one":          {[]string{"go"}, []int64{both, goOnly}},
		"all of two":   {[]string{"testing", "go"}, []int64{both}},
		"normalized":   {[]string{" Testing "}, []int64{both, py}},
		"unknown":      {[]string{"rust"}, nil},
		"two disjoint": {[]string{"python", "go"}, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := e.recall(t, map[string]any{"query": "tests", "tags": tc.tags})
			if diff := cmp.Diff(sorted(tc.want), sorted(got)); diff != "" {
				t.Errorf("recall tests with tags %v (-want +got):\n%s", tc.tags, diff)
			}
		})
	}
	if text := e.fail(t, "recall", map[string]any{"query": "tests", "tags": []string{"two words"}}); !strings.Contains(text, "space or comma") {
		t.Errorf("bad tag: %q", text)
	}
}

// TestRecallScope shares one config dir between two projects, as two
// sessions of the same user would.
func TestRecallScope(t *testing.T) {
	t.Parallel()
	cfg := tempDir(t)
	a, b := project(t, "a"), project(t, "b")
	ea, eb := connect(t, cfg, a), connect(t, cfg, b)
	inA := ea.remember(t, "lint with golangci-lint run", nil, "")
	global := ea.remember(t, "the user wants lint fixed before review", nil, "global")
	inB := eb.remember(t, "lint with ruff check", nil, "")
	outsider := tempDir(t)

	tests := map[string]struct {
		e     *env
		scope string
		want  []int64
	}{
		"a default":      {ea, "", []int64{inA, global}},
		"b default":      {eb, "", []int64{inB, global}},
		"a project":      {ea, "project", []int64{inA}},
		"a global":       {ea, "global", []int64{global}},
		"a all":          {ea, "all", []int64{inA, global, inB}},
		"a by path":      {ea, a, []int64{inA}},
		"a by sub path":  {ea, a + "/sub/dir", []int64{inA}},
		"a relative dot": {ea, ".", []int64{inA}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := tc.e.recall(t, map[string]any{"query": "lint", "scope": tc.scope})
			if diff := cmp.Diff(sorted(tc.want), sorted(got)); diff != "" {
				t.Errorf("recall lint, scope %q (-want +got):\n%s", tc.scope, diff)
			}
		})
	}
	for _, scope := range []string{b, outsider} {
		if text := ea.fail(t, "recall", map[string]any{"query": "lint", "scope": scope}); !strings.Contains(text, "outside the served folders") || !strings.Contains(text, `"all"`) {
			t.Errorf("scope %s from a: %q", scope, text)
		}
	}

	// Reads outside the served folders make another project's path a scope.
	wide := connect(t, cfg, a)
	if _, err := wide.g.Describe(t.Context(), sdk.Host{Roots: []string{a}, ConfigDir: cfg, ReadOutside: true}); err != nil {
		t.Fatal(err)
	}
	if got := wide.recall(t, map[string]any{"query": "lint", "scope": b}); !cmp.Equal(got, []int64{inB}) {
		t.Errorf("read-outside recall of b = %v, want %v", got, []int64{inB})
	}
}

// TestRecallQuerySyntax feeds FTS5 syntax as queries: none is an error,
// and words in them still match.
func TestRecallQuerySyntax(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.remember(t, `Near the "AND" gate: col:value pairs, a-b ranges, x*y NOT z (see {content}).`, nil, "")
	other := e.remember(t, "Unrelated remark about coffee.", nil, "")
	queries := []string{
		`"unbalanced quote`, `gate"`, `ranges*`, `-ranges`, `col:value`, `content:gate`, `{content}: gate`,
		`AND`, `gate AND`, `OR NOT gate`, `NEAR(gate value)`, `NEAR/2 gate`, `gate NEAR value`, `(gate`, `gate)`,
		`^gate`, `gate + value`, `'gate'`, `gate -`, `a-b`, `x*y`, `NOT`, `"AND"`, `rowid:1`, `memories_fts:gate`,
		`gate; DROP TABLE memories; --`, `gate\`, `ga%te`, `gate_value`, `ünïcödé gate`, "gate\x00value", `😀 gate`,
	}
	for _, q := range queries {
		t.Run(q, func(t *testing.T) {
			t.Parallel()
			res := e.call(t, "recall", map[string]any{"query": q})
			if res.IsError {
				t.Fatalf("recall %q: error %s", q, res.Text())
			}
			if got := ids(t, res); slices.Contains(got, other) {
				t.Errorf("recall %q = %v, found the unrelated memory %d", q, got, other)
			}
			if got := ids(t, res); len(got) == 0 && !strings.HasPrefix(res.Text(), "No memories match") {
				t.Errorf("recall %q: %q", q, res.Text())
			}
		})
	}
	// Every one of these has a word of the memory in it.
	for _, q := range []string{`"unbalanced gate`, `AND`, `NEAR(gate value)`, `col:value`, `x*y`, `NOT`, `{content}: gate`} {
		if got := e.recall(t, map[string]any{"query": q}); !cmp.Equal(got, []int64{id}) {
			t.Errorf("recall %q = %v, want [%d]", q, got, id)
		}
	}
	// No words at all is an error that says what to do.
	for _, q := range []string{`*`, `"`, `""`, `()`, `-:^`, `   `} {
		if text := e.fail(t, "recall", map[string]any{"query": q}); !strings.Contains(text, "no words to search for") {
			t.Errorf("recall %q: %q", q, text)
		}
	}
}

func TestRecallOutput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	long := strings.Repeat("lorem ipsum ", 500) // 6000 characters
	id := e.remember(t, long, []string{"filler"}, "")
	for i := range 12 {
		e.remember(t, fmt.Sprintf("note %d about widgets", i), nil, "")
	}

	t.Run("no match", func(t *testing.T) {
		t.Parallel()
		text := e.ok(t, "recall", map[string]any{"query": "gizmos"})
		if want := `No memories match "gizmos" in project ` + e.roots[0] + " and global."; text != want {
			t.Errorf("got %q, want %q", text, want)
		}
	})
	t.Run("truncated", func(t *testing.T) {
		t.Parallel()
		res := e.call(t, "recall", map[string]any{"query": "lorem"})
		body := res.Content[1].Text
		if !strings.HasSuffix(body, "\n[truncated: 2000 of 5999 characters shown; call again with max_chars=5999 to see all of it]") {
			t.Errorf("truncated block ends %q", body[max(0, len(body)-120):])
		}
		res = e.call(t, "recall", map[string]any{"query": "lorem", "max_chars": 5999})
		if _, content, _ := strings.Cut(res.Content[1].Text, "\n"); content != strings.TrimSpace(long) {
			t.Errorf("max_chars=5999 does not show the whole memory %d", id)
		}
	})
	t.Run("limit", func(t *testing.T) {
		t.Parallel()
		res := e.call(t, "recall", map[string]any{"query": "widgets", "limit": 5})
		if got := ids(t, res); len(got) != 5 {
			t.Errorf("limit 5 returned %d", len(got))
		}
		if !strings.Contains(res.Content[0].Text, "more match: raise limit, at most 100") {
			t.Errorf("summary %q does not say more match", res.Content[0].Text)
		}
		res = e.call(t, "recall", map[string]any{"query": "widgets", "limit": 12})
		if got := ids(t, res); len(got) != 12 || strings.Contains(res.Content[0].Text, "more match") {
			t.Errorf("limit 12: %d results, summary %q", len(got), res.Content[0].Text)
		}
	})
	t.Run("bad limits", func(t *testing.T) {
		t.Parallel()
		for _, tc := range []struct {
			args map[string]any
			want string
		}{
			{map[string]any{"query": "x", "limit": 101}, "invalid arguments for recall: \"limit\" must be at most 100 (got 101)"},
			{map[string]any{"query": "x", "limit": -1}, "invalid arguments for recall: \"limit\" must be at least 1 (got -1)"},
			{map[string]any{"query": "x", "max_chars": 20001}, "invalid arguments for recall: \"max_chars\" must be at most 20000 (got 20001)"},
		} {
			if text := e.fail(t, "recall", tc.args); !strings.Contains(text, tc.want) {
				t.Errorf("recall %v: %q, want it to contain %q", tc.args, text, tc.want)
			}
		}
	})
}

func sorted(ids []int64) []int64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}
