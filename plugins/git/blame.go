package git

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// maxAuthorWidth bounds the author column of git_blame.
const maxAuthorWidth = 20

type blameArgs struct {
	repoArg
	Path  string `json:"path" jsonschema:"file, relative to the repository's top level"`
	Start int    `json:"start,omitempty" jsonschema:"first line"`
	End   int    `json:"end,omitempty" jsonschema:"last line"`
	Ref   string `json:"ref,omitempty" jsonschema:"commit to blame at (default: the work tree)"`
}

var blameSpec = sdk.ToolSpec{
	Name:        "git_blame",
	Title:       "Git blame",
	Kind:        sdk.KindRead,
	Description: `Show who last changed each line of a file: "<hash> <date> <author> <line>| <content>"; uncommitted lines show hash 0000000. Long output is cut, with a last line saying where to continue.`,
}

var blameSchema = schemaFor[blameArgs](func(p map[string]*jsonschema.Schema) {
	sdk.IntDefault(p["start"], 1, 1, 0)
	min := 1.0
	p["end"].Minimum = &min
})

type blameCommit struct {
	hash, author, date string
}

type blameLine struct {
	commit *blameCommit
	n      int
	text   string
}

func (s *server) blame(ctx context.Context, rp *repo, args blameArgs) (*sdk.Result, error) {
	if args.Start < 0 || args.End < 0 {
		return nil, sdk.Failf("start and end must be 1 or more (got start=%d, end=%d)", args.Start, args.End)
	}
	if args.End > 0 && args.Start > args.End {
		return nil, sdk.Failf("start=%d is after end=%d", args.Start, args.End)
	}
	rel, err := rp.path(args.Path)
	if err != nil {
		return nil, err
	}
	cmd := append([]string{"blame", "--porcelain"}, rp.blameArgs()...)
	if rp.guarded() {
		cmd = append(cmd, "--no-textconv")
	}
	if args.Start > 0 || args.End > 0 {
		cmd = append(cmd, fmt.Sprintf("-L%d,%s", max(args.Start, 1), optInt(args.End)))
	}
	if args.Ref != "" {
		// blame has no --end-of-options: give it the verified hash.
		oid, err := rp.verify(ctx, "ref", args.Ref, "commit")
		if err != nil {
			return nil, err
		}
		cmd = append(cmd, oid)
	}
	cmd = append(cmd, "--", rel)
	out, err := rp.git(ctx, run{}, cmd...)
	if err != nil {
		return nil, err
	}
	if !out.ok() {
		msg := out.message()
		if strings.Contains(msg, "no such path") {
			where := "in the work tree"
			if args.Ref != "" {
				where = "at " + args.Ref
			}
			return nil, sdk.Failf("%s does not exist %s (or is not tracked); git said: %s", rel, where, msg)
		}
		return nil, sdk.Failf("git blame failed:\n%s", msg)
	}
	lines := parseBlame(out.stdout)
	if len(lines) == 0 {
		return sdk.TextResult(fmt.Sprintf("(%s is empty)", rel)), nil
	}
	authorW, numW := 0, len(strconv.Itoa(lines[len(lines)-1].n))
	for _, l := range lines {
		authorW = max(authorW, utf8.RuneCountInString(l.commit.author))
	}
	var b strings.Builder
	lastShown := 0
	for _, l := range lines {
		before := b.Len()
		pad := strings.Repeat(" ", authorW-utf8.RuneCountInString(l.commit.author))
		fmt.Fprintf(&b, "%s %s %s%s %*d| %s\n", l.commit.hash, l.commit.date, l.commit.author, pad, numW, l.n, l.text)
		if b.Len() > maxOutput && lastShown > 0 {
			s := b.String()[:before]
			return sdk.TextResult(addNote(s, fmt.Sprintf("cut at 100 KiB; continue with start=%d", lastShown+1))), nil
		}
		lastShown = l.n
	}
	text := strings.TrimSuffix(b.String(), "\n")
	if out.cut {
		text = addNote(text, fmt.Sprintf("git blame printed more than 16 MiB; continue with start=%d", lastShown+1))
	}
	return sdk.TextResult(text), nil
}

func optInt(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// parseBlame reads git blame --porcelain: for each line a header
// "<hash> <orig line> <final line> [<group size>]", the commit's fields the
// first time the commit appears, and the content after a tab.
func parseBlame(data []byte) []blameLine {
	commits := map[string]*blameCommit{}
	var (
		lines []blameLine
		cur   *blameCommit
		n     int
		// fields of the commit being read
		author, tz string
		at         int64
	)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), maxRaw)
	for sc.Scan() {
		line := sc.Text()
		if text, ok := strings.CutPrefix(line, "\t"); ok {
			if cur != nil {
				if cur.date == "" {
					cur.author, cur.date = displayAuthor(cur.hash, author), blameDate(at, tz)
				}
				lines = append(lines, blameLine{commit: cur, n: n, text: text})
			}
			cur = nil
			continue
		}
		if cur == nil {
			f := strings.Fields(line)
			if len(f) < 3 {
				continue
			}
			n, _ = strconv.Atoi(f[2])
			c, ok := commits[f[0]]
			if !ok {
				c = &blameCommit{hash: short(f[0])}
				commits[f[0]] = c
				author, tz, at = "", "", 0
			}
			cur = c
			continue
		}
		key, val, _ := strings.Cut(line, " ")
		switch key {
		case "author":
			author = val
		case "author-time":
			at, _ = strconv.ParseInt(val, 10, 64)
		case "author-tz":
			tz = val
		}
	}
	return lines
}

func displayAuthor(hash, author string) string {
	if strings.Trim(hash, "0") == "" {
		return "(uncommitted)"
	}
	if utf8.RuneCountInString(author) > maxAuthorWidth {
		r := []rune(author)
		return string(r[:maxAuthorWidth-1]) + "…"
	}
	return author
}

// blameDate is the author date in the author's time zone ("+0200").
func blameDate(at int64, tz string) string {
	loc := time.UTC
	if len(tz) == 5 {
		h, err1 := strconv.Atoi(tz[1:3])
		m, err2 := strconv.Atoi(tz[3:5])
		if err1 == nil && err2 == nil {
			off := (h*60 + m) * 60
			if tz[0] == '-' {
				off = -off
			}
			loc = time.FixedZone(tz, off)
		}
	}
	return time.Unix(at, 0).In(loc).Format("2006-01-02")
}
