package git

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/sdk"
)

const (
	defaultLogCount = 20
	maxLogCount     = 500
)

type logArgs struct {
	repoArg
	Count int    `json:"count,omitempty" jsonschema:"Most commits to list. Default 20, at most 500."`
	Skip  int    `json:"skip,omitempty" jsonschema:"Commits to skip first, to page through history. Default 0."`
	Path  string `json:"path,omitempty" jsonschema:"Only commits that changed this file or folder, relative to the repository's top level. A file is followed across renames."`
	Since string `json:"since,omitempty" jsonschema:"Only commits made after this date: \"2 weeks ago\", \"yesterday\", \"today\" (since midnight), \"2024-05-01\", \"2024-05-01T14:00\"."`
	Ref   string `json:"ref,omitempty" jsonschema:"Where to start: a branch, tag or commit, or a range \"main..feature\" (commits in feature not in main). Default HEAD."`
}

var logSpec = sdk.ToolSpec{
	Name:  "git_log",
	Title: "Git log",
	Kind:  sdk.KindRead,
	Description: `List commits, newest first, one line each:

  <short hash> <author date YYYY-MM-DD> <author name>: <subject> [<refs>]

for example "3f2a9c1 2024-05-01 Ada Lovelace: Fix the parser [HEAD -> main, tag: v1.2]". The bracketed refs (branches and tags pointing at the commit) appear only when there are some.

count sets how many (default 20, at most 500) and skip pages further back; when more commits match, a last line says so and gives the skip for the next page. ref picks where to start (default HEAD) or a range "A..B"; path keeps commits that touched a file or folder (a file is followed across renames); since keeps commits newer than a date, given as git understands it ("2 weeks ago", "yesterday", "2024-05-01"; "today" means since midnight). Use git_show with a hash to see one commit in full.`,
}

var logSchema = schemaFor[logArgs](func(p map[string]*jsonschema.Schema) {
	sdk.IntDefault(p["count"], defaultLogCount, 1, maxLogCount)
	sdk.IntDefault(p["skip"], 0, 0, 0)
	p["ref"].Default = []byte(`"HEAD"`)
})

func (s *server) log(ctx context.Context, rp *repo, args logArgs) (*sdk.Result, error) {
	count := args.Count
	if count == 0 {
		count = defaultLogCount
	}
	if count < 1 || count > maxLogCount {
		return nil, sdk.Failf("count must be between 1 and %d (got %d); page with skip for more", maxLogCount, count)
	}
	if args.Skip < 0 {
		return nil, sdk.Failf("skip must be 0 or more (got %d)", args.Skip)
	}
	ref := args.Ref
	if ref == "" {
		ref = "HEAD"
		if _, err := rp.verify(ctx, "ref", "HEAD", "commit"); err != nil {
			return nil, sdk.Failf("%s has no commits yet", rp.display())
		}
	} else if _, _, _, err := rp.verifyRange(ctx, "ref", ref, "commit"); err != nil {
		return nil, err
	}
	cmd := []string{"log", "--no-color", "-z", "--date=short",
		"--format=tformat:%h%x1f%ad%x1f%an%x1f%D%x1f%s",
		"-n", strconv.Itoa(count + 1)}
	cmd = append(cmd, rp.diffGuards()...)
	if args.Skip > 0 {
		cmd = append(cmd, "--skip="+strconv.Itoa(args.Skip))
	}
	if args.Since != "" {
		since, err := rp.since(ctx, args.Since)
		if err != nil {
			return nil, err
		}
		cmd = append(cmd, "--since="+since)
	}
	var path string
	if args.Path != "" {
		p, err := rp.path(args.Path)
		if err != nil {
			return nil, err
		}
		path = p
		if fi, err := os.Stat(filepath.Join(rp.top, filepath.FromSlash(p))); err == nil && fi.Mode().IsRegular() {
			cmd = append(cmd, "--follow")
		}
	}
	cmd = append(cmd, "--end-of-options", ref, "--")
	if path != "" {
		cmd = append(cmd, path)
	}
	out, err := rp.git(ctx, run{}, cmd...)
	if err != nil {
		return nil, err
	}
	if !out.ok() {
		return nil, out.failure("git log")
	}
	var lines []string
	for _, rec := range bytes.Split(out.stdout, []byte{0}) {
		f := strings.SplitN(strings.TrimPrefix(string(rec), "\n"), "\x1f", 5)
		if len(f) != 5 {
			continue
		}
		line := fmt.Sprintf("%s %s %s: %s", f[0], f[1], f[2], f[4])
		if f[3] != "" {
			line += " [" + f[3] + "]"
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		var filters []string
		if args.Path != "" {
			filters = append(filters, "path "+path)
		}
		if args.Since != "" {
			filters = append(filters, "since "+args.Since)
		}
		if args.Skip > 0 {
			filters = append(filters, fmt.Sprintf("skip %d", args.Skip))
		}
		msg := "no commits in " + ref
		if len(filters) > 0 {
			msg += " match " + strings.Join(filters, ", ")
		}
		return sdk.TextResult(msg), nil
	}
	more := len(lines) > count
	if more {
		lines = lines[:count]
	}
	text, cut := cutText(strings.Join(lines, "\n"), maxOutput)
	if cut {
		shown := strings.Count(text, "\n")
		return sdk.TextResult(addNote(text, fmt.Sprintf("cut at 100 KiB after %d commits; continue with skip=%d", shown, args.Skip+shown))), nil
	}
	if more {
		text = addNote(text, fmt.Sprintf("more commits; continue with skip=%d", args.Skip+count))
	}
	return sdk.TextResult(text), nil
}

// since checks a date for --since. git reads any text it cannot parse as
// "now", which would silently list nothing, so a date that comes out as
// now is refused. "today" is taken as midnight, as a person means it (git
// reads it as now).
func (rp *repo) since(ctx context.Context, v string) (string, error) {
	if err := checkArg("since", v); err != nil {
		return "", err
	}
	if strings.EqualFold(strings.TrimSpace(v), "today") {
		v = "midnight"
	}
	before := time.Now().Unix()
	out, err := rp.git(ctx, run{limit: 4 << 10}, "rev-parse", "--since="+v)
	if err != nil {
		return "", err
	}
	age, ok := strings.CutPrefix(strings.TrimSpace(string(out.stdout)), "--max-age=")
	t, perr := strconv.ParseInt(age, 10, 64)
	if out.code != 0 || !ok || perr != nil || t >= before-1 {
		return "", sdk.Failf("since %q is not a date git understands (it reads as now or later); use e.g. \"2 weeks ago\", \"yesterday\", \"2024-05-01\" or \"2024-05-01T14:00\"", v)
	}
	return v, nil
}
