package memory_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestListPaging(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var all []int64 // most recent first
	for i := range 45 {
		var tags []string
		if i%3 == 0 {
			tags = []string{"third"}
		}
		all = append([]int64{e.remember(t, fmt.Sprintf("note number %d", i), tags, "")}, all...)
	}
	root := e.roots[0]
	tests := map[string]struct {
		args map[string]any
		head string
		want []int64
	}{
		"first page":  {map[string]any{}, fmt.Sprintf("Memories 1-20 of 45 in project %s and global, most recent first; next page: start=20:", root), all[:20]},
		"second page": {map[string]any{"start": 20}, fmt.Sprintf("Memories 21-40 of 45 in project %s and global, most recent first; next page: start=40:", root), all[20:40]},
		"last page":   {map[string]any{"start": 40}, fmt.Sprintf("Memories 41-45 of 45 in project %s and global, most recent first:", root), all[40:]},
		"limit":       {map[string]any{"limit": 7, "start": 3}, fmt.Sprintf("Memories 4-10 of 45 in project %s and global, most recent first; next page: start=10:", root), all[3:10]},
		"tags": {map[string]any{"tags": []string{"third"}, "limit": 10}, fmt.Sprintf("Memories 1-10 of 15 in project %s and global with tags third, most recent first; next page: start=10:", root),
			[]int64{all[2], all[5], all[8], all[11], all[14], all[17], all[20], all[23], all[26], all[29]}},
		"global":       {map[string]any{"scope": "global"}, "No memories in global.", nil},
		"past the end": {map[string]any{"start": 50}, fmt.Sprintf("No memories at start=50: there are 45 memories in project %s and global; the last page is start=40.", root), nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res := e.call(t, "list_memories", tc.args)
			if res.IsError {
				t.Fatalf("error: %s", res.Text())
			}
			if got := res.Content[0].Text; got != tc.head {
				t.Errorf("head %q, want %q", got, tc.head)
			}
			if diff := cmp.Diff(tc.want, ids(t, res)); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := map[string]struct {
		args map[string]any
		want string
	}{
		"limit too big":  {map[string]any{"limit": 201}, "invalid arguments for list_memories: \"limit\" must be at most 200 (got 201)"},
		"negative start": {map[string]any{"start": -1}, "invalid arguments for list_memories: \"start\" must be at least 0 (got -1)"},
		"bad tag":        {map[string]any{"tags": []string{""}}, "tag 1 is empty"},
		"scope outside":  {map[string]any{"scope": "/"}, "outside the served folders"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if text := e.fail(t, "list_memories", tc.args); !strings.Contains(text, tc.want) {
				t.Errorf("got %q, want it to contain %q", text, tc.want)
			}
		})
	}
}

func TestListTruncates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.remember(t, strings.Repeat("x", 501), nil, "")
	e.remember(t, strings.Repeat("y", 500), nil, "")
	res := e.call(t, "list_memories", map[string]any{})
	if got := res.Content[1].Text; strings.Contains(got, "truncated") {
		t.Errorf("500 characters were truncated: %q", got)
	}
	if got := res.Content[2].Text; !strings.HasSuffix(got, strings.Repeat("x", 500)+"\n[truncated: 500 of 501 characters shown; call again with max_chars=501 to see all of it]") {
		t.Errorf("501 characters: %q", got)
	}
}
