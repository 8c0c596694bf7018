package memory_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestForget(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.remember(t, "alpha: the first note\nwith a second line", []string{"greek"}, "")
	b := e.remember(t, "bravo: the second note", nil, "global")
	c := e.remember(t, "charlie: the third note", nil, "")

	text := e.ok(t, "forget", map[string]any{"id": a})
	if want := fmt.Sprintf("Forgot id %d: alpha: the first note…", a); text != want {
		t.Errorf("got %q, want %q", text, want)
	}
	if diff := cmp.Diff([]int64{c, b}, e.all(t)); diff != "" {
		t.Errorf("after forget (-want +got):\n%s", diff)
	}
	// The indexes and the tag table forgot it too.
	if got := e.recall(t, map[string]any{"query": "alpha"}); len(got) != 0 {
		t.Errorf("recall finds the forgotten memory: %v", got)
	}
	if got := e.recall(t, map[string]any{"query": "note", "tags": []string{"greek"}}); len(got) != 0 {
		t.Errorf("tag filter finds the forgotten memory: %v", got)
	}

	text = e.ok(t, "forget", map[string]any{"ids": []int64{b, c, b}})
	if want := fmt.Sprintf("Forgot id %d: bravo: the second note\nForgot id %d: charlie: the third note", b, c); text != want {
		t.Errorf("got %q, want %q", text, want)
	}
	if got := e.all(t); len(got) != 0 {
		t.Errorf("left %v", got)
	}
}

func TestForgetAllOrNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.remember(t, "keep me", nil, "")
	b := e.remember(t, "keep me too", nil, "global")
	tests := map[string]struct {
		args map[string]any
		want string
	}{
		"unknown id":       {map[string]any{"id": 999}, "no memory has id 999; nothing was forgotten"},
		"one unknown":      {map[string]any{"ids": []int64{a, 999, b}}, "no memory has id 999; nothing was forgotten"},
		"several unknown":  {map[string]any{"id": a, "ids": []int64{998, 999}}, "no memories have ids 998, 999; nothing was forgotten"},
		"no id":            {map[string]any{}, "give id (one memory) or ids (several)"},
		"empty ids":        {map[string]any{"ids": []int64{}}, "give id (one memory) or ids (several)"},
		"negative":         {map[string]any{"ids": []int64{a, -3}}, "invalid arguments for forget: \"ids[1]\" must be at least 1 (got -3)"},
		"too many":         {map[string]any{"ids": seq(101)}, "invalid arguments for forget: \"ids\" must have at most 100 items (got 101)"},
		"id is not number": {map[string]any{"id": "1"}, "invalid arguments for forget: \"id\" must be an integer, got \"1\""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if text := e.fail(t, "forget", tc.args); !strings.Contains(text, tc.want) {
				t.Errorf("got %q, want it to contain %q", text, tc.want)
			}
		})
	}
	t.Cleanup(func() {
		if diff := cmp.Diff([]int64{b, a}, e.all(t)); diff != "" {
			t.Errorf("a failed forget removed memories (-want +got):\n%s", diff)
		}
	})
}

// TestForgetIDsNotReused: the id of a forgotten memory never comes back,
// even when it was the highest.
func TestForgetIDsNotReused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.remember(t, "one", nil, "")
	two := e.remember(t, "two", nil, "")
	e.ok(t, "forget", map[string]any{"id": two})
	if three := e.remember(t, "three", nil, ""); three <= two {
		t.Errorf("new memory got id %d after id %d was forgotten", three, two)
	}
	// Forgetting and remembering the same content makes a new memory.
	e.ok(t, "forget", map[string]any{"id": 1})
	if again := e.remember(t, "one", nil, ""); again == 1 {
		t.Errorf("re-remembered content got its forgotten id back")
	}
}

func seq(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i + 1)
	}
	return out
}
