package git

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// maxTrackedChanges bounds the files whose contents checkout hashes to
// report as changes; a larger switch is reported without them.
const maxTrackedChanges = 2000

type checkoutArgs struct {
	repoArg
	Ref        string `json:"ref" jsonschema:"branch, tag or commit; with create, the new branch's name"`
	Create     bool   `json:"create,omitempty" jsonschema:"create the branch (git checkout -b)"`
	StartPoint string `json:"start_point,omitempty" jsonschema:"with create: where the branch starts"`
}

var checkoutSpec = sdk.ToolSpec{
	Name:  "git_checkout",
	Title: "Git checkout",
	Kind:  sdk.KindWrite,
	// It keeps every change: git refuses to overwrite local changes.
	Annotations: sdk.Annotations{Destructive: &no, Idempotent: &yes},
	Description: `Switch to a branch (a tag or commit detaches HEAD), or with create make a branch at start_point and switch to it. It never discards changes: when the switch would overwrite some, git refuses and nothing changes. Returns the new HEAD and the files that changed.`,
}

var checkoutSchema = schemaFor[checkoutArgs](nil)

func (s *server) checkout(ctx context.Context, rp *repo, args checkoutArgs) (*sdk.Result, error) {
	if args.StartPoint != "" && !args.Create {
		return nil, sdk.Failf("start_point goes with create: true; to switch to %q, pass it as ref", args.StartPoint)
	}
	var cmd []string
	target := args.Ref
	if args.Create {
		if err := rp.checkBranchName(ctx, args.Ref); err != nil {
			return nil, err
		}
		// Without start_point the branch starts at HEAD, which on a
		// repository with no commits yet is unborn: git renames it.
		target = "HEAD"
		if args.StartPoint != "" {
			target = args.StartPoint
			if _, err := rp.verify(ctx, "start_point", target, "commit"); err != nil {
				return nil, err
			}
		}
		cmd = []string{"checkout", "-b", args.Ref}
		if args.StartPoint != "" {
			cmd = append(cmd, args.StartPoint)
		}
	} else {
		if err := checkArg("ref", args.Ref); err != nil {
			return nil, err
		}
		cmd = []string{"checkout", args.Ref}
	}
	// The trailing "--" makes ref a ref only: checkout never reads it as
	// paths to overwrite.
	cmd = append(cmd, "--")

	if err := rp.checkSmudge(ctx, target); err != nil {
		return nil, err
	}
	before := rp.snapshot(ctx, target)
	out, err := rp.git(ctx, run{}, cmd...)
	if err != nil {
		return nil, err
	}
	if !out.ok() {
		msg := out.message()
		switch {
		case strings.Contains(msg, "would be overwritten"):
			return nil, sdk.Failf("git checkout refused, nothing changed:\n%s\nCommit those changes with git_commit (or have the user stash them), then switch again", msg)
		case strings.Contains(msg, "invalid reference") || strings.Contains(msg, "did not match any"):
			return nil, sdk.Failf("git checkout failed, nothing changed:\n%s\nList branches with git_branch (all: true for remote ones); to make a new branch pass create: true", msg)
		}
		return nil, sdk.Failf("git checkout failed:\n%s", msg)
	}
	var b strings.Builder
	b.WriteString(strings.TrimSpace(string(out.stderr)))
	if o := strings.TrimSpace(string(out.stdout)); o != "" {
		// Local changes carried over, one "M\tpath" per line.
		fmt.Fprintf(&b, "\nuncommitted changes kept:\n%s", o)
	}
	if rp.detached(ctx) {
		fmt.Fprintf(&b, "\nHEAD: detached at %s (on no branch: commits made here belong to no branch; to keep them, make one with create: true)", rp.head(ctx))
	} else {
		fmt.Fprintf(&b, "\nHEAD: %s", rp.head(ctx))
	}
	res := &sdk.Result{}
	if before != nil {
		res.Changes = before.changes(rp)
		fmt.Fprintf(&b, "\n%s changed in the work tree", wording.Count(len(res.Changes), "file"))
	}
	text, cut := cutText(b.String(), maxOutput)
	if cut {
		text = addNote(text, "cut at 100 KiB; git_status shows the state of the work tree")
	}
	res.Content = []sdk.Content{{Text: text}}
	return res, nil
}

// snapshot records the work-tree content of every file that differs
// between HEAD and target, so that what a checkout changed can be
// reported. nil when there is nothing to compare (no commits yet, a target
// git resolves only while checking out) or too many files.
type snapshot map[string]string // repo-relative path → sha256, "" when absent

func (rp *repo) snapshot(ctx context.Context, target string) snapshot {
	from, err1 := rp.verify(ctx, "ref", "HEAD", "commit")
	to, err2 := rp.verify(ctx, "ref", target, "commit")
	if err1 != nil || err2 != nil {
		return nil
	}
	snap := snapshot{}
	if from == to {
		return snap
	}
	out, err := rp.git(ctx, run{}, "diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", from, to, "--")
	if err != nil || out.code != 0 || out.cut {
		return nil
	}
	names := bytes.Split(bytes.TrimSuffix(out.stdout, []byte{0}), []byte{0})
	if len(names) > maxTrackedChanges {
		return nil
	}
	snap, err = rp.snapshotOf(out.stdout)
	if err != nil {
		return nil
	}
	return snap
}

// snapshotOf records the work-tree content of the files names lists
// (git's -z output, repository-relative), the first maxTrackedChanges of
// them.
func (rp *repo) snapshotOf(names []byte) (snapshot, error) {
	top, err := rp.roots.Read(rp.top)
	if err != nil {
		return nil, err
	}
	snap := snapshot{}
	for _, n := range bytes.Split(bytes.TrimSuffix(names, []byte{0}), []byte{0}) {
		if len(n) > 0 && len(snap) < maxTrackedChanges {
			snap[string(n)] = fileSHA(top.Join(string(n)))
		}
	}
	return snap, nil
}

// changes compares the snapshot with the work tree now.
func (s snapshot) changes(rp *repo) []sdk.FileChange {
	top, err := rp.roots.Read(rp.top)
	if err != nil {
		return nil
	}
	var out []sdk.FileChange
	for rel, before := range s {
		t := top.Join(rel)
		if after := fileSHA(t); after != before {
			out = append(out, sdk.FileChange{Path: t.Abs, BeforeSHA256: before, AfterSHA256: after})
		}
	}
	slices.SortFunc(out, func(a, b sdk.FileChange) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// fileSHA is the hex SHA-256 of a file's content (of a symlink's target
// text), "" when there is no such file. It reaches the file through the
// os.Root of its served folder (roots.Target), so a directory swapped for a
// link after checkout cannot lead it outside.
func fileSHA(t *roots.Target) string {
	fi, err := t.Lstat()
	if err != nil {
		return ""
	}
	h := sha256.New()
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := t.Readlink()
		if err != nil {
			return ""
		}
		io.WriteString(h, target)
	case fi.Mode().IsRegular():
		f, err := t.Open()
		if err != nil {
			return ""
		}
		defer f.Close()
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
			return ""
		}
		if _, err := io.Copy(h, f); err != nil {
			return ""
		}
	default:
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}
