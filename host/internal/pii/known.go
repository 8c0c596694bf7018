package pii

import (
	"slices"
	"sync"
)

// MinKnownLen is the shortest value a KnownSet finds: shorter ones (a
// short name) would be found inside ordinary words.
const MinKnownLen = 6

// prefixLen is how many bytes of a value index it: values that share them
// are few, however many values the set holds (they share a start only as
// far as the data they came from does).
const prefixLen = 8

// KnownSet finds values by their exact text wherever they are, whatever
// surrounds them: the values a vault keeps, once they have been written
// back into files, names, commit messages or errors in places the
// patterns would not recognise (a card number between two digits, an
// address in a file name). It is safe for concurrent use.
//
// Find costs one table look-up a byte of text, and a map look-up for each
// place whose first two bytes start some value, and then one for each
// length of the values that share its first eight: a set of many values
// that share a start (planted by whoever wrote what the server filtered)
// does not make it slower.
type KnownSet struct {
	mu    sync.RWMutex
	heads [1 << 16]bool           // first two bytes of some value
	long  map[string]*knownPrefix // first prefixLen bytes → the values longer than that
	short map[string]Kind         // the values of MinKnownLen to prefixLen bytes, whole
}

// knownPrefix is the values that share their first prefixLen bytes.
type knownPrefix struct {
	lengths []int // distinct, longest first
	values  map[string]Kind
}

// Add adds a value; one shorter than MinKnownLen is left out, and a text
// already added keeps the kind it was first added with.
func (s *KnownSet) Add(kind Kind, text string) {
	if len(text) < MinKnownLen {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.long == nil {
		s.long, s.short = map[string]*knownPrefix{}, map[string]Kind{}
	}
	if len(text) <= prefixLen {
		if _, dup := s.short[text]; !dup {
			s.short[text] = kind
		}
	} else {
		p := s.long[text[:prefixLen]]
		if p == nil {
			p = &knownPrefix{values: map[string]Kind{}}
			s.long[text[:prefixLen]] = p
		}
		if _, dup := p.values[text]; dup {
			return
		}
		p.values[text] = kind
		if i, found := slices.BinarySearchFunc(p.lengths, len(text), func(a, b int) int { return b - a }); !found {
			p.lengths = slices.Insert(p.lengths, i, len(text))
		}
	}
	s.heads[uint16(text[0])|uint16(text[1])<<8] = true
}

// Find appends to all a finding for every place a value occurs in text
// (the longest value where several start at one place).
func (s *KnownSet) Find(text string, all []Finding) []Finding {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.long) == 0 && len(s.short) == 0 {
		return all
	}
	for i := 0; i+MinKnownLen <= len(text); i++ {
		if !s.heads[uint16(text[i])|uint16(text[i+1])<<8] {
			continue
		}
		if kind, n, ok := s.at(text[i:]); ok {
			all = append(all, Finding{Kind: kind, Start: i, End: i + n})
		}
	}
	return all
}

// at is the longest value text starts with: its kind and length.
func (s *KnownSet) at(text string) (Kind, int, bool) {
	if len(text) > prefixLen {
		if p := s.long[text[:prefixLen]]; p != nil {
			for _, n := range p.lengths {
				if n > len(text) {
					continue
				}
				if kind, ok := p.values[text[:n]]; ok {
					return kind, n, true
				}
			}
		}
	}
	for n := min(prefixLen, len(text)); n >= MinKnownLen && len(s.short) > 0; n-- {
		if kind, ok := s.short[text[:n]]; ok {
			return kind, n, true
		}
	}
	return "", 0, false
}
