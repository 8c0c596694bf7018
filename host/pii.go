package host

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ramabana/ramabana-mcp/pii"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// filterPII applies the --pii mode to a read tool's result: redact each
// finding in its text, or withhold the whole result. Structured content
// with findings is dropped when redacting (a placeholder could break its
// JSON) and counts like text when refusing.
func filterPII(mode pii.Mode, tool string, r *sdk.Result) *sdk.Result {
	if mode == pii.ModeOff || r == nil || r.IsError {
		return r
	}
	counts := map[pii.Kind]int{}
	out := *r
	out.Content = make([]sdk.Content, len(r.Content))
	for i, c := range r.Content {
		switch {
		case c.Image != nil:
		case c.Resource != nil:
			if c.Resource.Text != "" {
				res := *c.Resource
				res.Text = redact(res.Text, counts)
				c.Resource = &res
			}
		default:
			c.Text = redact(c.Text, counts)
		}
		out.Content[i] = c
	}
	if len(r.Structured) > 0 && len(pii.Find(string(r.Structured))) > 0 {
		redact(string(r.Structured), counts)
		out.Structured = nil
	}
	if len(counts) == 0 {
		return r
	}
	if mode == pii.ModeRefuse {
		return sdk.Errorf("the result of %s contains %s; this server runs with --pii refuse, so it is withheld. Narrow the request to leave that data out.", tool, describeCounts(counts))
	}
	return &out
}

func redact(text string, counts map[pii.Kind]int) string {
	out, found := pii.Redact(text)
	for _, f := range found {
		counts[f.Kind]++
	}
	return out
}

var piiNames = map[pii.Kind][2]string{
	pii.Email:  {"e-mail address", "e-mail addresses"},
	pii.Phone:  {"phone number", "phone numbers"},
	pii.Card:   {"payment card number", "payment card numbers"},
	pii.Secret: {"secret", "secrets"},
}

func describeCounts(counts map[pii.Kind]int) string {
	var parts []string
	for kind, n := range counts {
		name := piiNames[kind]
		if n == 1 {
			parts = append(parts, "1 "+name[0])
		} else {
			parts = append(parts, fmt.Sprintf("%d %s", n, name[1]))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
