package pii

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// FilterResult applies the --pii mode to a read tool's result: redact each
// finding in its text, or withhold the whole result. Structured content
// with findings is dropped when redacting (a placeholder could break its
// JSON) and counts like text when refusing.
func FilterResult(mode Mode, tool string, r *sdk.Result) *sdk.Result {
	return Filter{Mode: mode}.Result(tool, r)
}

// Result is FilterResult with f's mode, and names too when f.Names is set.
func (f Filter) Result(tool string, r *sdk.Result) *sdk.Result {
	mode := f.Mode
	if mode == ModeOff || r == nil || r.IsError {
		return r
	}
	counts := map[Kind]int{}
	out := *r
	out.Content = make([]sdk.Content, len(r.Content))
	for i, c := range r.Content {
		switch {
		case c.Image != nil:
		case c.Resource != nil:
			if c.Resource.Text != "" {
				res := *c.Resource
				res.Text = f.redact(res.Text, counts)
				c.Resource = &res
			}
		default:
			c.Text = f.redact(c.Text, counts)
		}
		out.Content[i] = c
	}
	if len(r.Structured) > 0 {
		// Redact inside the JSON's strings, so it stays valid for its
		// output schema; count its findings only when no text block
		// already carried the same data.
		seen := counts
		if len(r.Content) > 0 {
			seen = map[Kind]int{}
		}
		if s, ok := f.redactJSON(r.Structured, seen); ok {
			out.Structured = s
		} else if len(f.Find(string(r.Structured))) > 0 {
			out.Structured = nil // not JSON: drop rather than leak
			f.redact(string(r.Structured), seen)
		}
		if len(seen) > 0 && len(counts) == 0 {
			counts = seen
		}
	}
	if len(counts) == 0 {
		return r
	}
	if mode == ModeRefuse {
		msg := fmt.Sprintf("the result of %s contains %s; this server runs with --pii refuse, so it is withheld. Narrow the request to leave that data out.", tool, describeCounts(counts))
		return &sdk.Result{Content: []sdk.Content{{Text: msg}}, IsError: true}
	}
	return &out
}

func (f Filter) redact(text string, counts map[Kind]int) string {
	out, found := f.Redact(text)
	for _, f := range found {
		counts[f.Kind]++
	}
	return out
}

var piiNames = map[Kind][2]string{
	Email:  {"e-mail address", "e-mail addresses"},
	Phone:  {"phone number", "phone numbers"},
	Card:   {"payment card number", "payment card numbers"},
	Secret: {"secret", "secrets"},
	Name:   {"personal name", "personal names"},
}

func describeCounts(counts map[Kind]int) string {
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

// redactJSON redacts every string value (and object key) in a JSON
// document; ok is false when it is not JSON.
func (f Filter) redactJSON(doc []byte, counts map[Kind]int) ([]byte, bool) {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, false
	}
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case string:
			return f.redact(x, counts)
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		case map[string]any:
			out := make(map[string]any, len(x))
			for k, val := range x {
				out[f.redact(k, counts)] = walk(val)
			}
			return out
		}
		return v
	}
	b, err := json.Marshal(walk(v))
	if err != nil {
		return nil, false
	}
	return b, true
}
