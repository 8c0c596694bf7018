package git

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
)

type stashArgs struct {
	repoArg
	Action  string `json:"action" jsonschema:"push: set the work tree's changes aside; pop: bring the newest back; list: the stashes"`
	Message string `json:"message,omitempty" jsonschema:"push: what the stash holds"`
}

var stashSpec = sdk.ToolSpec{
	Name:  "git_stash",
	Title: "Git stash",
	Kind:  sdk.KindWrite,
	// It keeps every change: in the stash, or back in the work tree.
	Annotations: sdk.Annotations{Destructive: &no},
	Description: `Set the changes to tracked files aside (push, leaving them as HEAD; untracked files stay), bring the newest stash back (pop; on a conflict the stash is kept), or list the stashes. Push and pop list the files that changed.`,
}

var stashSchema = schemaFor[stashArgs](func(p map[string]*jsonschema.Schema) {
	sdk.Enum(p["action"], "push", "pop", "list")
})

func (s *server) stash(ctx context.Context, rp *repo, args stashArgs) (*sdk.Result, error) {
	switch args.Action {
	case "list":
		out, err := rp.git(ctx, run{}, "stash", "list", "--format=%gd: %s")
		if err != nil {
			return nil, err
		}
		if !out.ok() {
			return nil, out.failure("git stash list")
		}
		text := strings.TrimSpace(string(out.stdout))
		if text == "" {
			text = "no stashes"
		}
		return sdk.TextResult(text), nil
	case "push", "pop":
	default:
		return nil, sdk.Failf("action %q: use push, pop or list", args.Action)
	}
	if args.Action == "pop" && args.Message != "" {
		return nil, sdk.Failf("message goes with push")
	}
	// The files the command will write in the work tree.
	var list *output
	var err error
	if args.Action == "push" {
		list, err = rp.git(ctx, run{}, "diff", "HEAD", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--")
		// Stashing hashes the changed files, as git add does.
		if err == nil {
			err = rp.checkFilters(ctx, []string{"."}, true)
		}
	} else {
		list, err = rp.git(ctx, run{}, "stash", "show", "--name-only", "-z", "--include-untracked", "stash@{0}")
	}
	if err != nil {
		return nil, err
	}
	if !list.ok() || list.cut {
		if msg := list.message(); args.Action == "pop" && (strings.Contains(msg, "No stash entries") || strings.Contains(msg, "not a valid reference")) {
			return nil, sdk.Failf("no stashes to pop")
		}
		return nil, list.failure("git stash")
	}
	if err := rp.refuseSmudged(ctx, list, "git stash", "stashed or popped", "this", "stash"); err != nil {
		return nil, err
	}
	snap, err := rp.snapshotOf(list.stdout)
	if err != nil {
		return nil, err
	}
	cmd := []string{"stash", "pop"}
	if args.Action == "push" {
		cmd = []string{"stash", "push"}
		if args.Message != "" {
			cmd = append(cmd, "--message="+args.Message)
		}
	}
	out, err := rp.git(ctx, run{}, cmd...)
	if err != nil {
		return nil, err
	}
	res := &sdk.Result{Changes: snap.changes(rp)}
	if !out.ok() {
		msg := out.message()
		if args.Action == "pop" && strings.Contains(msg, "CONFLICT") {
			text := fmt.Sprintf("git stash pop met conflicts; the stash is kept (drop it in a shell once they are resolved):\n%s", msg)
			res.Content = []sdk.Content{{Text: text}}
			res.IsError = true
			return res, nil
		}
		return nil, out.failure("git " + strings.Join(cmd[:2], " "))
	}
	var text string
	switch {
	case args.Action == "push" && strings.Contains(string(out.stdout), "No local changes"):
		text = "nothing to stash: the work tree is as HEAD"
	case args.Action == "push":
		text = fmt.Sprintf("stashed; %s set aside, the work tree is as HEAD", wording.Count(len(res.Changes), "file"))
	default:
		text = fmt.Sprintf("popped the newest stash; %s changed", wording.Count(len(res.Changes), "file"))
	}
	for _, c := range res.Changes {
		text += "\n  " + rp.roots.Rel(c.Path)
	}
	res.Content = []sdk.Content{{Text: text}}
	return res, nil
}
