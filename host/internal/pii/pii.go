package pii

import (
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Kind is a category of personal or secret data.
type Kind string

// The kinds Find detects.
const (
	Email  Kind = "email"
	Phone  Kind = "phone"
	Card   Kind = "card"
	Secret Kind = "secret"
	// Name is a personal name, found only with [Filter.Names] (--pii-ner).
	Name Kind = "name"
	// Literal is text that is shaped like a placeholder without being
	// one, found only with a [Filter.Vault]: it is hidden behind a
	// placeholder of its own, so a model that copies it into a write gets
	// that text back, never the value of the placeholder it imitates.
	Literal Kind = "literal"
)

// priority decides which of two overlapping findings is kept: higher wins.
func (k Kind) priority() int {
	switch k {
	case Literal:
		return 6
	case Secret:
		return 5
	case Card:
		return 4
	case Email:
		return 3
	case Phone:
		return 2
	case Name:
		return 1
	}
	return 0
}

// Finding is one match: text[Start:End] is PII of the given Kind. Offsets
// are byte offsets into the text given to Find.
type Finding struct {
	Kind       Kind
	Start, End int
}

// Filter is what the --pii flags ask for: what to do with a result that
// holds PII, and whether personal names count.
type Filter struct {
	Mode Mode
	// Names adds personal names (kind Name) to the patterns (--pii-ner).
	Names bool
	// Vault, when set (--vault), gives each finding its stable placeholder
	// (see [FormatPlaceholder]) instead of [REDACTED:kind], in both modes:
	// nothing is withheld. Text shaped like a placeholder is found too
	// (kind Literal) and hidden behind one of its own. A finding the vault
	// fails to keep is redacted as without it.
	Vault Placeholders
	// KeepPlaceholders, with a Vault, leaves placeholders in the text as
	// they are instead of hiding them as Literal: for a model's own text,
	// whose placeholders are the ones it was shown.
	KeepPlaceholders bool
	// OnlyKnown, with a Vault, finds the values the vault keeps and
	// nothing else (no patterns, no placeholder-shaped text): for what is
	// handed to a tool that may not have them, which gets their
	// placeholders instead.
	OnlyKnown bool
}

// Placeholders keeps the originals behind placeholders: the package vault.
type Placeholders interface {
	// Placeholders returns the placeholder that stands for each value, in
	// order: the same one every time it is given the same value of the
	// same kind. A Filter asks once per text, with all of its findings.
	Placeholders(values []Value) ([]string, error)
	// FindKnown appends to all a finding for every place in text where a
	// value it keeps occurs, by its exact text (a KnownSet's Find).
	FindKnown(text string, all []Finding) []Finding
}

// Value is a finding's text and kind, for [Placeholders].
type Value struct {
	Kind Kind
	Text string
}

// Find returns the PII in text that the patterns find (not names), sorted
// by Start, with no two findings overlapping. Where detectors disagree
// about a stretch of text, the finding of the higher kind is kept (Secret,
// then Card, Email, Phone, Name).
func Find(text string) []Finding { return Filter{}.Find(text) }

// Find returns the PII in text as the package-level Find does, with
// f.Names the personal names too, and with f.Vault every value the vault
// keeps wherever it occurs, and the text shaped like placeholders (kind
// Literal). f.Mode plays no part.
func (f Filter) Find(text string) []Finding {
	var all []Finding
	if f.OnlyKnown {
		if f.Vault == nil {
			return nil
		}
		return resolve(f.Vault.FindKnown(text, all))
	}
	if f.Vault != nil {
		all = f.Vault.FindKnown(text, all)
		if !f.KeepPlaceholders {
			for _, p := range FindPlaceholders(text) {
				all = append(all, Finding{Kind: Literal, Start: p.Start, End: p.End})
			}
		}
	}
	all = findSecrets(text, all)
	all = findEmails(text, all)
	all = findNumbers(text, all)
	if f.Names {
		all = findNames(text, all)
	}
	return resolve(all)
}

// Redact returns text with each finding of the patterns replaced by
// [REDACTED:kind], and the findings (offsets into the original text).
func Redact(text string) (string, []Finding) { return Filter{}.Redact(text) }

// Redact is the package-level Redact, with names when f.Names is set, and
// with each finding's placeholder when f.Vault is.
func (f Filter) Redact(text string) (string, []Finding) {
	fs := f.Find(text)
	if len(fs) == 0 {
		return text, nil
	}
	subs := f.replacements(text, fs)
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for i, x := range fs {
		b.WriteString(text[last:x.Start])
		b.WriteString(subs[i])
		last = x.End
	}
	b.WriteString(text[last:])
	return b.String(), fs
}

// Text is text as f lets it leave: unchanged with ModeOff, else redacted
// (a refusal is for results; a text is redacted in both modes).
func (f Filter) Text(text string) string {
	if f.Mode == ModeOff {
		return text
	}
	out, _ := f.Redact(text)
	return out
}

// replacements returns what stands for each finding in a redacted text:
// its placeholder from f.Vault, or [REDACTED:kind].
func (f Filter) replacements(text string, fs []Finding) []string {
	if f.Vault != nil {
		values := make([]Value, len(fs))
		for i, x := range fs {
			values[i] = Value{Kind: x.Kind, Text: text[x.Start:x.End]}
		}
		if subs, err := f.Vault.Placeholders(values); err == nil && len(subs) == len(fs) {
			return subs
		}
	}
	subs := make([]string, len(fs))
	for i, x := range fs {
		subs[i] = "[REDACTED:" + string(x.Kind) + "]"
	}
	return subs
}

// resolve drops overlaps: findings are taken by kind, highest first, and
// within a kind by position, longest first; each is kept only if it overlaps
// none kept so far. Each kind is merged into the kept list in one sweep.
func resolve(all []Finding) []Finding {
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if pa, pb := a.Kind.priority(), b.Kind.priority(); pa != pb {
			return pa > pb
		}
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		return a.End > b.End
	})
	var kept []Finding // sorted by Start, non-overlapping
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].Kind == all[i].Kind {
			j++
		}
		var add []Finding
		k, lastEnd := 0, -1
		for _, f := range all[i:j] {
			if f.Start >= f.End || f.Start < lastEnd {
				continue
			}
			for k < len(kept) && kept[k].End <= f.Start {
				k++
			}
			if k < len(kept) && kept[k].Start < f.End {
				continue
			}
			add = append(add, f)
			lastEnd = f.End
		}
		kept = merge(kept, add)
		i = j
	}
	return kept
}

// merge merges two lists sorted by Start.
func merge(a, b []Finding) []Finding {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	out := make([]Finding, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0].Start < b[0].Start {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	out = append(out, a...)
	return append(out, b...)
}

// ASCII character classes; bytes of multi-byte UTF-8 sequences are in none.

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isAlpha(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isAlnum(c byte) bool { return isDigit(c) || isAlpha(c) }
func isWord(c byte) bool  { return isAlnum(c) || c == '_' }

// lazyRegexp compiles expr at its first use.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// at returns text[i], or 0 outside the text.
func at(text string, i int) byte {
	if i < 0 || i >= len(text) {
		return 0
	}
	return text[i]
}
