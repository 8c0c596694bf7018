package pii

import (
	"strings"
	"sync"
)

// MinKnownLen is the shortest value a KnownSet finds: shorter ones (a
// short name) would be found inside ordinary words.
const MinKnownLen = 6

// KnownSet finds values by their exact text wherever they are, whatever
// surrounds them: the values a vault keeps, once they have been written
// back into files, names, commit messages or errors in places the
// patterns would not recognise (a card number between two digits, an
// address in a file name). It is safe for concurrent use.
type KnownSet struct {
	mu     sync.RWMutex
	heads  [1 << 16]bool           // first two bytes of some value
	byHead map[uint32][]knownValue // first four bytes → values
	seen   map[string]struct{}     // kind + "\x00" + text
}

type knownValue struct {
	kind Kind
	text string
}

// Add adds a value; one shorter than MinKnownLen is left out.
func (s *KnownSet) Add(kind Kind, text string) {
	if len(text) < MinKnownLen {
		return
	}
	key := string(kind) + "\x00" + text
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.seen[key]; dup {
		return
	}
	if s.seen == nil {
		s.seen, s.byHead = map[string]struct{}{}, map[uint32][]knownValue{}
	}
	s.seen[key] = struct{}{}
	s.heads[uint16(text[0])|uint16(text[1])<<8] = true
	h := head4(text)
	s.byHead[h] = append(s.byHead[h], knownValue{kind: kind, text: text})
}

// head4 is s's first four bytes as a number; s has at least four.
func head4(s string) uint32 {
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// Find appends to all a finding for every place a value occurs in text
// (the longest value where several start at one place).
func (s *KnownSet) Find(text string, all []Finding) []Finding {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.seen) == 0 {
		return all
	}
	for i := 0; i+MinKnownLen <= len(text); i++ {
		if !s.heads[uint16(text[i])|uint16(text[i+1])<<8] {
			continue
		}
		cands := s.byHead[head4(text[i:])]
		best := -1
		for j, v := range cands {
			if strings.HasPrefix(text[i:], v.text) && (best < 0 || len(v.text) > len(cands[best].text)) {
				best = j
			}
		}
		if best >= 0 {
			all = append(all, Finding{Kind: cands[best].kind, Start: i, End: i + len(cands[best].text)})
		}
	}
	return all
}
