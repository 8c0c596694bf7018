package git

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/sdk"
)

type commitArgs struct {
	repoArg
	Message string   `json:"message" jsonschema:"subject line, optionally a blank line and a body"`
	Paths   []string `json:"paths,omitempty" jsonschema:"commit only these tracked files or folders"`
}

var commitSpec = sdk.ToolSpec{
	Name:  "git_commit",
	Title: "Git commit",
	Kind:  sdk.KindWrite,
	// It keeps every change: a commit only adds history.
	Annotations: sdk.Annotations{Destructive: &no},
	Description: `Commit what is staged (git commit), or with paths the current changes of just those tracked files. Hooks run only when the shell group is mounted. The author comes from git config (user.name, user.email). Returns git's summary and stat.`,
}

var commitSchema = schemaFor[commitArgs](func(p map[string]*jsonschema.Schema) {
	one := 1
	p["message"].MinLength = &one
})

func (s *server) commit(ctx context.Context, rp *repo, args commitArgs) (*sdk.Result, error) {
	if strings.TrimSpace(args.Message) == "" {
		return nil, sdk.Failf("message is empty; give the commit a message that says what changed and why")
	}
	if strings.ContainsRune(args.Message, 0) {
		return nil, sdk.Failf("message contains a NUL byte")
	}
	if err := rp.checkIdentity(ctx); err != nil {
		return nil, err
	}
	paths, err := rp.paths(args.Paths)
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 && !rp.merging(ctx) {
		out, err := rp.git(ctx, run{}, "diff", "--cached", "--quiet", "--no-ext-diff")
		if err != nil {
			return nil, err
		}
		if out.code == 0 {
			where := ""
			if d := rp.display(); d != "." {
				where = " in the repository at " + d
			}
			return nil, sdk.Failf("nothing to commit: no changes are staged%s. Stage changes with git_add, or pass paths to commit changes to tracked files directly; git_status shows what changed", where)
		}
	}
	if err := rp.checkFilters(ctx, paths, true); err != nil {
		return nil, err
	}
	cmd := []string{"commit", "--file=-"}
	if len(paths) > 0 {
		cmd = append(append(cmd, "--"), paths...)
	}
	out, err := rp.git(ctx, run{stdin: strings.NewReader(args.Message)}, cmd...)
	if err != nil {
		return nil, err
	}
	if !out.ok() {
		msg := out.message()
		switch {
		case strings.Contains(msg, "did not match any file(s) known to git"):
			return nil, sdk.Failf("git commit failed, nothing was committed:\n%s\npaths must be tracked files; stage new files with git_add first", msg)
		case strings.Contains(msg, "nothing to commit") || strings.Contains(msg, "no changes added to commit"):
			return nil, sdk.Failf("nothing to commit: the paths have no changes\n%s", msg)
		}
		return nil, sdk.Failf("git commit failed, nothing was committed (a failing hook prints its reasons here):\n%s", msg)
	}
	return sdk.TextResult(strings.TrimSpace(string(out.stdout))), nil
}

// checkIdentity fails when git has no author or committer configured, with
// user.useConfigOnly so that git never makes one up from the host name.
func (rp *repo) checkIdentity(ctx context.Context) error {
	for _, v := range []string{"GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"} {
		out, err := rp.git(ctx, run{limit: 4 << 10}, "var", v)
		if err != nil {
			return err
		}
		if out.code != 0 {
			return sdk.Failf("git has no author identity to commit with (user.name and user.email are not set). Ask the user to set them, e.g.\n  git config --global user.name \"Their Name\"\n  git config --global user.email \"them@example.com\"\n(or without --global, in %s only); git said: %s", rp.top, out.message())
		}
	}
	return nil
}

// merging reports a merge in progress, whose commit may have no changes
// of its own.
func (rp *repo) merging(ctx context.Context) bool {
	out, err := rp.git(ctx, run{limit: 4 << 10}, "rev-parse", "--git-path", "MERGE_HEAD")
	if err != nil || out.code != 0 {
		return false
	}
	p := strings.TrimSpace(string(out.stdout))
	if !filepath.IsAbs(p) {
		p = filepath.Join(rp.top, p)
	}
	_, err = os.Stat(p)
	return err == nil
}
