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
	Limit int    `json:"limit,omitempty" jsonschema:"most commits"`
	Start int    `json:"start,omitempty" jsonschema:"commits to skip"`
	Path  string `json:"path,omitempty" jsonschema:"only commits changing this file or folder"`
	Since string `json:"since,omitempty" jsonschema:"e.g. \"2 weeks ago\", \"2024-05-01\""`
	Ref   string `json:"ref,omitempty" jsonschema:"where to start, or a range \"main..feature\""`
}

var logSpec = sdk.ToolSpec{
	Name:        "git_log",
	Title:       "Git log",
	Kind:        sdk.KindRead,
	Description: `List commits, newest first, one per line: "<hash> <date> <author>: <subject> [<refs>]". When more match, a last line gives the start of the next page. git_show shows one in full.`,
}

var logSchema = schemaFor[logArgs](func(p map[string]*jsonschema.Schema) {
	sdk.IntDefault(p["limit"], defaultLogCount, 1, maxLogCount)
	sdk.IntDefault(p["start"], 0, 0, 0)
	p["ref"].Default = []byte(`"HEAD"`)
})

// logQuery is a validated git_log call.
type logQuery struct {
	limit, start int
	ref          string
	// path (as git names it) and since are the filters given, "" for none.
	path, since string
	// cmd is the git log command line.
	cmd []string
}

func (s *server) log(ctx context.Context, rp *repo, args logArgs) (*sdk.Result, error) {
	q, err := rp.newLogQuery(ctx, args)
	if err != nil {
		return nil, err
	}
	lines, err := rp.logLines(ctx, q)
	if err != nil {
		return nil, err
	}
	sum := logSummary{ref: q.ref, path: q.path, since: q.since, start: q.start, limit: q.limit}
	return sdk.TextResult(sum.render(lines)), nil
}

// newLogQuery applies git_log's defaults and bounds, verifies its ref, date
// and path, and builds the command that lists one commit more than limit,
// to tell whether there are more. Its errors are tool failures that say
// what to change.
func (rp *repo) newLogQuery(ctx context.Context, args logArgs) (logQuery, error) {
	q := logQuery{limit: args.Limit, start: args.Start, ref: args.Ref, since: args.Since}
	if q.limit == 0 {
		q.limit = defaultLogCount
	}
	if q.limit < 1 || q.limit > maxLogCount {
		return logQuery{}, sdk.Failf("limit must be between 1 and %d (got %d); page with start for more", maxLogCount, q.limit)
	}
	if q.start < 0 {
		return logQuery{}, sdk.Failf("start must be 0 or more (got %d)", q.start)
	}
	if q.ref == "" {
		q.ref = "HEAD"
		if _, err := rp.verify(ctx, "ref", "HEAD", "commit"); err != nil {
			return logQuery{}, sdk.Failf("%s has no commits yet", rp.display())
		}
	} else if _, _, _, err := rp.verifyRange(ctx, "ref", q.ref, "commit"); err != nil {
		return logQuery{}, err
	}
	q.cmd = []string{"log", "--no-color", "-z", "--date=short",
		"--format=tformat:%h%x1f%ad%x1f%an%x1f%D%x1f%s",
		"-n", strconv.Itoa(q.limit + 1)}
	q.cmd = append(q.cmd, rp.diffGuards()...)
	if q.start > 0 {
		q.cmd = append(q.cmd, "--skip="+strconv.Itoa(q.start))
	}
	if q.since != "" {
		since, err := rp.since(ctx, q.since)
		if err != nil {
			return logQuery{}, err
		}
		q.cmd = append(q.cmd, "--since="+since)
	}
	if args.Path != "" {
		p, err := rp.path(args.Path)
		if err != nil {
			return logQuery{}, err
		}
		q.path = p
		if fi, err := os.Stat(filepath.Join(rp.top, filepath.FromSlash(p))); err == nil && fi.Mode().IsRegular() {
			q.cmd = append(q.cmd, "--follow")
		}
	}
	q.cmd = append(q.cmd, "--end-of-options", q.ref, "--")
	if q.path != "" {
		q.cmd = append(q.cmd, q.path)
	}
	return q, nil
}

// logLines runs q's git log and returns one line per commit, newest first.
func (rp *repo) logLines(ctx context.Context, q logQuery) ([]string, error) {
	out, err := rp.git(ctx, run{}, q.cmd...)
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
	return lines, nil
}

// logSummary is what git_log says besides the commits: that none match,
// or where the next page starts.
type logSummary struct {
	// ref, path, since and start are the query, to name when nothing
	// matches; path and since are "" when not given.
	ref, path, since string
	start, limit     int
}

// render is the tool's text for lines, the commits found (limit of them
// and one more when there are more).
func (s logSummary) render(lines []string) string {
	if len(lines) == 0 {
		var filters []string
		if s.path != "" {
			filters = append(filters, "path "+s.path)
		}
		if s.since != "" {
			filters = append(filters, "since "+s.since)
		}
		if s.start > 0 {
			filters = append(filters, fmt.Sprintf("start %d", s.start))
		}
		msg := "no commits in " + s.ref
		if len(filters) > 0 {
			msg += " match " + strings.Join(filters, ", ")
		}
		return msg
	}
	more := len(lines) > s.limit
	if more {
		lines = lines[:s.limit]
	}
	text, cut := cutText(strings.Join(lines, "\n"), maxOutput)
	if cut {
		shown := strings.Count(text, "\n")
		return addNote(text, fmt.Sprintf("cut at 100 KiB after %d commits; continue with start=%d", shown, s.start+shown))
	}
	if more {
		text = addNote(text, fmt.Sprintf("more commits; continue with start=%d", s.start+s.limit))
	}
	return text
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
