package git

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/ramabana/ramabana-mcp/sdk"
)

type branchArgs struct {
	repoArg
	Name       string `json:"name,omitempty" jsonschema:"branch to create; leave out to list"`
	StartPoint string `json:"start_point,omitempty" jsonschema:"commit the new branch starts at"`
	All        bool   `json:"all,omitempty" jsonschema:"list remote-tracking branches too"`
}

var branchSpec = sdk.ToolSpec{
	Name:  "git_branch",
	Title: "Git branch",
	Kind:  sdk.KindWrite,
	// It keeps every change: it creates branches, never moves or deletes one.
	Annotations: sdk.Annotations{Destructive: &no},
	Description: `List branches, one per line ("* main 3f2a9c1 [origin/main: ahead 1] subject"), or with name create a branch at start_point without switching to it.`,
}

var branchSchema = schemaFor[branchArgs](nil)

func (s *server) branch(ctx context.Context, rp *repo, args branchArgs) (*sdk.Result, error) {
	if args.Name == "" {
		if args.StartPoint != "" {
			return nil, sdk.Failf("start_point needs name: give the name of the branch to create")
		}
		return rp.listBranches(ctx, args.All)
	}
	if err := rp.checkBranchName(ctx, args.Name); err != nil {
		return nil, err
	}
	start := args.StartPoint
	if start == "" {
		start = "HEAD"
	}
	if _, err := rp.verify(ctx, "start_point", start, "commit"); err != nil {
		if args.StartPoint == "" {
			return nil, sdk.Failf("%s has no commits yet, so a branch has nothing to point at; commit first", rp.display())
		}
		return nil, err
	}
	out, err := rp.git(ctx, run{}, "branch", "--no-color", "--", args.Name, start)
	if err != nil {
		return nil, err
	}
	if !out.ok() {
		return nil, out.failure("git branch")
	}
	at, err := rp.git(ctx, run{limit: 4 << 10}, "log", "-1", "--format=%h %s", "--end-of-options", "refs/heads/"+args.Name, "--")
	if err != nil {
		return nil, err
	}
	return sdk.TextResult(fmt.Sprintf("created branch %s at %s; it is not checked out (switch with git_checkout ref: %q)",
		args.Name, strings.TrimSpace(string(at.stdout)), args.Name)), nil
}

func (rp *repo) listBranches(ctx context.Context, all bool) (*sdk.Result, error) {
	cmd := []string{"branch", "--list", "--no-color",
		"--format=%(HEAD)%1f%(refname:short)%1f%(objectname:short)%1f%(upstream:short)%1f%(upstream:track,nobracket)%1f%(symref)%1f%(contents:subject)"}
	if all {
		cmd = append(cmd, "--all")
	}
	out, err := rp.git(ctx, run{}, cmd...)
	if err != nil {
		return nil, err
	}
	if !out.ok() {
		return nil, out.failure("git branch")
	}
	var lines []string
	for _, l := range bytes.Split(bytes.TrimSuffix(out.stdout, []byte("\n")), []byte("\n")) {
		f := strings.SplitN(string(l), "\x1f", 7)
		if len(f) != 7 {
			continue
		}
		if strings.HasPrefix(f[1], "(") { // "(HEAD detached at 3f2a9c1)"
			lines = append(lines, fmt.Sprintf("* %s %s", f[1], f[6]))
			continue
		}
		if f[5] != "" {
			// origin/HEAD: an alias of the remote's default branch.
			continue
		}
		line := fmt.Sprintf("%s %s %s", f[0], f[1], f[2])
		if f[3] != "" {
			track := f[4]
			if track == "" {
				track = "up to date"
			}
			line += fmt.Sprintf(" [%s: %s]", f[3], track)
		}
		lines = append(lines, line+" "+f[6])
	}
	if len(lines) == 0 {
		return sdk.TextResult(fmt.Sprintf("no branches yet in %s: the first commit creates the current branch", rp.display())), nil
	}
	text, cut := cutText(strings.Join(lines, "\n"), maxOutput)
	if cut {
		text = addNote(text, "list cut at 100 KiB")
	}
	return sdk.TextResult(text), nil
}
