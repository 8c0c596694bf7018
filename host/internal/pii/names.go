package pii

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The lists the name detector consults, made by gen_names.go from three
// Debian packages (its doc says how); data/names.txt's header says where
// they come from and under which licences.
var (
	//go:embed data/names.txt
	namesTxt string
	//go:embed data/words.txt.gz
	wordsGz []byte
)

// nameLists are the embedded lists, loaded on first use: most servers never
// look for names.
type nameLists struct {
	first, last map[string]struct{} // lower case
	words       []string            // lower-case English words, sorted
}

var lists = sync.OnceValue(func() *nameLists {
	l := &nameLists{first: map[string]struct{}{}, last: map[string]struct{}{}}
	var into map[string]struct{}
	for line := range strings.Lines(namesTxt) {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "" || line[0] == '#':
		case strings.HasPrefix(line, "[first]"):
			into = l.first
		case strings.HasPrefix(line, "[last]"):
			into = l.last
		case into != nil:
			into[line] = struct{}{}
		}
	}
	// Some listed first names are among the commonest English words; as a
	// first name they would make a name of "So Good" or "In Case".
	for _, w := range strings.Fields("an so in on can many my you even ok un en") {
		delete(l.first, w)
	}
	zr, err := gzip.NewReader(bytes.NewReader(wordsGz))
	if err != nil {
		panic("pii: embedded word list: " + err.Error())
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		panic("pii: embedded word list: " + err.Error())
	}
	l.words = strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	return l
})

// isFirst, isLast and isWord look a capitalised word up in lower case.
func (l *nameLists) isFirst(w string) bool { return lookup(l.first, w) }
func (l *nameLists) isLast(w string) bool  { return lookup(l.last, w) }
func (l *nameLists) isWord(w string) bool {
	_, ok := slices.BinarySearch(l.words, strings.ToLower(w))
	return ok
}

// lookup reports whether m holds w in lower case; an ASCII word is lowered
// on the stack, since most capitalised words in a text are looked up.
func lookup[V any](m map[string]V, w string) bool {
	var buf [32]byte
	if len(w) > len(buf) {
		_, ok := m[strings.ToLower(w)]
		return ok
	}
	b := buf[:len(w)]
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			_, ok := m[strings.ToLower(w)]
			return ok
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	_, ok := m[string(b)]
	return ok
}

// titles are the honorifics that introduce a name, as written, without a
// final dot. A title marked true must be written with its dot (M. Dupont,
// Sig. Rossi), since without one it is mostly something else.
var titles = map[string]bool{
	// English
	"Mr": false, "Mrs": false, "Ms": false, "Mx": false, "Miss": false, "Dr": false, "Prof": false,
	"Sir": false, "Dame": false, "Lady": false, "Lord": false, "Rev": false,
	// German, Dutch, Scandinavian
	"Herr": false, "Frau": false, "Hr": true, "Fr": true, "Dhr": true, "Mevr": true, "Mw": true, "Fru": false,
	// French
	"M": true, "Mme": false, "Mlle": false, "Me": true,
	// Spanish, Portuguese
	"Sr": true, "Sra": true, "Srta": true, "Don": false, "Doña": false, "Dña": true, "Dom": false, "Dona": false,
	// Italian
	"Sig": true, "Sig.ra": false, "Sig.na": false, "Dott": true, "Dott.ssa": false, "Avv": true, "Ing": true,
	// Polish, Czech, Slovak
	"Pan": false, "Pani": false, "Pán": false, "Paní": false,
}

// particles join a first name to a surname: Ludwig van Beethoven.
var particles = map[string]bool{
	"van": true, "von": true, "der": true, "den": true, "de": true, "del": true, "della": true, "di": true,
	"da": true, "du": true, "la": true, "le": true, "ten": true, "ter": true, "dos": true, "das": true,
	"bin": true, "ibn": true, "al": true,
}

// suffixes may follow a name without being part of it: King Jr.
var suffixes = map[string]bool{"Jr": true, "Sr": true, "Esq": true, "PhD": true}

// lazySet returns the set of the space-separated words, made at its first
// use.
func lazySet(words string) func() map[string]bool {
	return sync.OnceValue(func() map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(words) {
			m[w] = true
		}
		return m
	})
}

// calendar words are never a surname.
var calendar = lazySet(`
		January February March April June July August September October November December
		Monday Tuesday Wednesday Thursday Friday Saturday Sunday`)

// notName reports whether w is never part of a name: a month or a day, or
// a word that turns a person's name into a place's, a building's, a
// prize's or a company's, unless it is a known surname too (Hall, Park).
func (l *nameLists) notName(w string) bool {
	return calendar()[w] || notName()[w] && !l.isLast(w)
}

// notName are the words that turn a person's name into a place's, a
// building's, a prize's or a company's, and a few companies and products.
var notName = lazySet(`
		Center Centre Institute University College School Academy Hospital Clinic Foundation Fund Trust
		Street St Avenue Ave Road Rd Boulevard Blvd Lane Drive Square Plaza Park Bridge Building Hall
		Tower Station Airport Library Museum Memorial Stadium Arena Theatre Theater Church Cathedral
		Award Awards Prize Medal Fellowship Lecture Day Act Law Syndrome Disease Effect Theorem
		Inc LLC Ltd GmbH AG Corp Corporation Company Co PLC Group Partners Associates Studios Labs
		Hotel Island River Lake Mountain Valley Bay Beach County City State Province Republic Kingdom
		Linux Windows Android Google Microsoft Apple Amazon Azure Oracle GitHub`)

// places are names of places that are not also common first names or
// surnames; they are not a surname (Austin Texas), nor a name after a
// title.
var places = lazySet(`
		America Africa Asia Europe Australia Antarctica
		Alabama Alaska Arizona Arkansas California Colorado Connecticut Delaware Florida Hawaii
		Idaho Illinois Indiana Iowa Kansas Kentucky Louisiana Maryland Massachusetts Michigan
		Minnesota Mississippi Missouri Montana Nebraska Nevada Ohio Oklahoma Oregon Pennsylvania
		Tennessee Texas Utah Vermont Wisconsin Wyoming
		Canada Mexico Brazil Argentina Chile Peru Colombia England Scotland Wales Ireland France
		Germany Spain Portugal Italy Netherlands Belgium Switzerland Austria Poland Sweden Norway
		Denmark Finland Russia Ukraine Greece Turkey Egypt Israel India Pakistan China Japan Korea
		Vietnam Thailand Indonesia Philippines Nigeria Kenya
		London Paris Berlin Madrid Rome Vienna Prague Warsaw Amsterdam Brussels Dublin Lisbon Zurich
		Munich Hamburg Frankfurt Heidelberg Cologne Lyon Marseille Milan Naples Barcelona Seville
		Boston Chicago Seattle Atlanta Miami Detroit Toronto Vancouver Montreal Melbourne Tokyo Osaka
		Kyoto Beijing Shanghai Delhi Mumbai`)

// labels are the words after which capitalised words are a person's name
// whether or not the first one is a known first name: "Author: Wei Zhang",
// "@author Mei Lin", "name": "...".
var labels = map[string]bool{
	"author": true, "@author": true, "authors": true, "maintainer": true, "maintainers": true, "owner": true,
	"assignee": true, "reviewer": true, "contact": true, "name": true, "full_name": true, "fullname": true,
	"signed-off-by": true, "co-authored-by": true, "reviewed-by": true, "acked-by": true, "tested-by": true,
	"reported-by": true, "suggested-by": true, "helped-by": true,
}

// byLabels are the words that, followed by "by", work as labels:
// "written by", "reported by".
var byLabels = map[string]bool{
	"written": true, "maintained": true, "created": true, "reported": true, "reviewed": true,
	"authored": true, "signed": true, "escalated": true, "approved": true, "edited": true,
}

// findNames appends the personal names in text to out: a titled name
// (Dr. Jane Smith, Sig.ra Bianchi), a known first name followed by a
// surname (Margaret Thompson, Ludwig van Beethoven, John F. Kennedy),
// capitalised words after a label that names a person (Author: Wei Zhang,
// @author, Signed-off-by:, "name":), or two capitalised words around an
// initial (Ossama M. Khayat).
//
// What it leaves alone, because cheap rules can tell: a first name that
// is also a word (Will, May, Mark, Grace) unless the next word is a known
// surname; a "surname" that is a common word (Jordan River, Claude Code)
// and not a known surname; months, days, and names of places, buildings,
// prizes and companies (the Grace Hopper Center, George Washington Bridge:
// a run of capitalised words longer than a name, or after "the"); a
// title before a common word (Dr. Pepper, Pan Am); code (CamelCase,
// snake_case, a.b, inside backticks). A first name alone is not a name
// here, nor are names in lower or upper case.
func findNames(text string, out []Finding) []Finding {
	var l *nameLists
	var code backticks
	for i := 0; i < len(text); i++ {
		// Only a capital at a word boundary starts a name: most bytes
		// are passed over by the table.
		if !mayStart[text[i]] || !leftBoundary(text, i) {
			continue
		}
		if text[i] >= utf8.RuneSelf {
			if r, _ := utf8.DecodeRuneInString(text[i:]); !unicode.IsUpper(r) {
				continue
			}
		}
		t := wordAt(text, i)
		if t.kind != tokCap && t.kind != tokInitial {
			continue // CamelCase, UPPER_CASE
		}
		if l == nil {
			l = lists()
		}
		if s, e, ok := matchName(l, text, t); ok && !code.inside(text, s) {
			out = append(out, Finding{Name, s, e})
			i = e - 1
		}
	}
	return out
}

// mayStart marks the bytes a name can start with: A-Z, and the lead bytes
// of multi-byte UTF-8 sequences (É, Ž), which findNames decodes.
var mayStart = func() (t [256]bool) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := 0xC0; c < 0x100; c++ {
		t[c] = true
	}
	return t
}()

// joiner marks the ASCII bytes after which a capital is not a word's
// start: letters, digits, and the characters that join identifiers, paths
// and handles.
var joiner = func() (t [256]bool) {
	for c := 0; c < utf8.RuneSelf; c++ {
		t[c] = isWord(byte(c)) || strings.IndexByte("_.$@#/\\-'", byte(c)) >= 0
	}
	return t
}()

// runEnd returns the end of the run of word characters (letters, digits,
// _, and ' - ’ between letters) starting at i.
func runEnd(text string, i int) int {
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			if isWord(c) {
				i++
				continue
			}
			if (c == '\'' || c == '-') && i+1 < len(text) && startsLetter(text, i+1) {
				i++
				continue
			}
			return i
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if r == '’' && startsLetter(text, i+n) {
			i += n
			continue
		}
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r) {
			return i
		}
		i += n
	}
	return i
}

func startsLetter(text string, i int) bool {
	if i >= len(text) {
		return false
	}
	if c := text[i]; c < utf8.RuneSelf {
		return isAlpha(c)
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return unicode.IsLetter(r)
}

// leftBoundary reports whether a word at i starts a word in prose: not
// after a letter or digit, nor after the characters that join identifiers,
// paths and handles (_ . $ @ # / \ -).
func leftBoundary(text string, i int) bool {
	if i == 0 {
		return true
	}
	c := text[i-1]
	if c >= utf8.RuneSelf {
		r, _ := utf8.DecodeLastRuneInString(text[:i])
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '’'
	}
	return !joiner[c]
}

// backticks says whether a place is inside `code` on its line, for places
// asked in increasing order: it counts the backticks of the line once
// between the places asked, not from the line's start each time (a long
// line full of names would cost its length squared).
type backticks struct {
	pos int  // text[:pos] is counted
	odd bool // an odd count of backticks since the last line break before pos
}

// inside reports whether i (at least every earlier i asked) is inside
// `code` on its line.
func (b *backticks) inside(text string, i int) bool {
	for ; b.pos < i; b.pos++ {
		switch text[b.pos] {
		case '\n':
			b.odd = false
		case '`':
			b.odd = !b.odd
		}
	}
	return b.odd
}

// nameTokKind classifies a word of a possible name.
type nameTokKind int

const (
	tokOther    nameTokKind = iota
	tokCap                  // a capitalised word: Smith, O'Connor, McDonald, Jean-Pierre
	tokInitial              // a capital and a dot: F.
	tokParticle             // van, de, della
	tokSuffix               // Jr., Sr.
)

// nameTok is one word of a possible name, text[start:end]: word is the
// word itself, without a possessive 's (which end excludes too); an
// initial's end includes its dot.
type nameTok struct {
	kind       nameTokKind
	start, end int
	word       string
}

// wordAt reads the word at i, which starts a word.
func wordAt(text string, i int) nameTok {
	end := runEnd(text, i)
	w := text[i:end]
	t := nameTok{start: i, end: end, word: w}
	if end < len(text) && text[end] == '(' {
		return t // a call: Name(
	}
	if w == "" {
		return t
	}
	if 'a' <= w[0] && w[0] <= 'z' {
		if particles[w] {
			t.kind = tokParticle
		}
		return t
	}
	if len(w) <= 3 && suffixes[w] {
		t.kind = tokSuffix
		return t
	}
	// An initial: one capital letter and a dot.
	if len(w) == 1 && 'A' <= w[0] && w[0] <= 'Z' && end < len(text) && text[end] == '.' {
		t.kind, t.end = tokInitial, end+1
		return t
	}
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s") // a possessive
	if capWord(w) {
		t.kind, t.word, t.end = tokCap, w, i+len(w)
	}
	return t
}

// capWord reports whether w is shaped like a name: a capital, then lower
// case, with capitals only after - or ' (Hans-Jürgen, O'Connor) or after
// Mc, Mac, De, Di, Da, La, Le, Van, Von, Fitz, Du (McDonald, DeVries), and
// no digits or underscores. CamelCase identifiers (UserService) are not.
func capWord(w string) bool {
	first, n := utf8.DecodeRuneInString(w)
	if !unicode.IsUpper(first) || n == len(w) {
		return false
	}
	lower, afterSep := false, false
	seg := 0 // where the current segment (between - and ') starts
	for j, r := range w[n:] {
		j += n
		switch {
		case r == '-' || r == '\'' || r == '’':
			seg, afterSep = j+utf8.RuneLen(r), true
			continue
		case unicode.IsLower(r) || unicode.Is(unicode.Mn, r):
			lower = true
		case unicode.IsUpper(r):
			if !afterSep && !namePrefix(w[seg:j]) {
				return false
			}
		default:
			return false // a digit, an underscore
		}
		afterSep = false
	}
	return lower
}

func namePrefix(p string) bool {
	switch p {
	case "Mc", "Mac", "De", "Di", "Da", "La", "Le", "Van", "Von", "Fitz", "Du":
		return true
	}
	return false
}

// matchName tries each kind of name at first, a capitalised word or an
// initial at a word boundary, and returns the name's span.
func matchName(l *nameLists, text string, first nameTok) (int, int, bool) {
	i := first.start
	if next, ok := titleAt(text, i); ok {
		// Don and Dame are first names too: Don Johnson.
		if s, e, ok := firstLast(l, text, first); ok {
			return s, e, true
		}
		return titled(l, text, next)
	}
	s, e, ok := 0, 0, false
	if labelBefore(text, i) {
		s, e, ok = labelled(l, text, i)
	}
	if !ok {
		s, e, ok = firstLast(l, text, first)
	}
	if !ok {
		s, e, ok = initialed(l, text, first)
	}
	if ok {
		// Initials before the name are part of it: A. V. Le Blanc.
		for s >= 3 && text[s-1] == ' ' && text[s-2] == '.' && 'A' <= text[s-3] && text[s-3] <= 'Z' && leftBoundary(text, s-3) {
			s -= 3
		}
	}
	return s, e, ok
}

// initialed accepts a capitalised word, one or two initials and another
// capitalised word, neither of them a common English word that is not a
// known name: Ossama M. Khayat, whose first name no list has.
func initialed(l *nameLists, text string, t nameTok) (int, int, bool) {
	i := t.start
	if t.kind != tokCap || t.end+3 > len(text) || text[t.end] != ' ' || text[t.end+2] != '.' {
		return 0, 0, false
	}
	seq := sequence(text, i, 4)
	if len(seq) < 3 || seq[0].kind != tokCap || seq[1].kind != tokInitial {
		return 0, 0, false
	}
	k := 2
	if seq[k].kind == tokInitial {
		k++
	}
	if k >= len(seq) || seq[k].kind != tokCap {
		return 0, 0, false
	}
	for _, t := range []nameTok{seq[0], seq[k]} {
		if l.notName(t.word) || places()[t.word] || l.isWord(t.word) && !l.isFirst(t.word) && !l.isLast(t.word) {
			return 0, 0, false
		}
	}
	if runsOn(text, seq[k].end) {
		return 0, 0, false
	}
	return i, seq[k].end, true
}

// titleAt reads titles at i (Frau Dr., Prof. Dr.) and returns where the
// name after them starts.
func titleAt(text string, i int) (int, bool) {
	found := false
	for {
		end := i
		for end < len(text) && (startsLetter(text, end) || text[end] == '.' && startsLetter(text, end+1)) {
			_, n := utf8.DecodeRuneInString(text[end:])
			end += n
		}
		w := text[i:end]
		dot := end < len(text) && text[end] == '.'
		needDot, ok := titles[w]
		if !ok || needDot && !dot {
			return i, found
		}
		if len(w) == 1 && !found && capitalisedBefore(text, i) {
			return i, false // an initial: Ossama M. Khayat
		}
		if dot {
			end++
		}
		if end >= len(text) || text[end] != ' ' || !startsUpper(text, end+1) {
			return i, found
		}
		found, i = true, end+1
	}
}

// capitalisedBefore reports whether the word before i, one space back, is
// capitalised.
func capitalisedBefore(text string, i int) bool {
	if i < 2 || text[i-1] != ' ' {
		return false
	}
	k := i - 1
	for k > 0 && text[k-1] != ' ' && text[k-1] != '\n' {
		k--
	}
	return startsUpper(text, k)
}

func startsUpper(text string, i int) bool {
	if i >= len(text) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return unicode.IsUpper(r)
}

// sequence reads up to max name words from i, one space apart: capitalised
// words, initials and particles. It stops before anything else.
func sequence(text string, i, max int) []nameTok {
	seq := make([]nameTok, 0, max)
	for len(seq) < max {
		t := wordAt(text, i)
		if t.kind == tokOther || t.kind == tokSuffix {
			break
		}
		seq = append(seq, t)
		if t.end >= len(text) || text[t.end] != ' ' || t.end+1 >= len(text) {
			break
		}
		i = t.end + 1
	}
	// A name ends on a capitalised word.
	for len(seq) > 0 && seq[len(seq)-1].kind != tokCap {
		seq = seq[:len(seq)-1]
	}
	return seq
}

// runsOn reports whether the name ending at end is followed by another
// capitalised word (past a suffix: King Jr. Day), which makes it part of a
// longer proper name: the Grace Hopper Center.
func runsOn(text string, end int) bool {
	for {
		switch {
		case strings.HasPrefix(text[end:], " "):
			end++
		case strings.HasPrefix(text[end:], ", ") && wordAt(text, end+2).kind == tokSuffix:
			end += 2
		default:
			return false
		}
		t := wordAt(text, end)
		if t.kind != tokSuffix {
			return t.kind == tokCap
		}
		end = t.end
		if end < len(text) && text[end] == '.' {
			end++
		}
	}
}

// titled accepts one to three name words after a title; a single word
// that is a common English word and not a known surname is a product or a
// job (Dr. Pepper, Sr. Engineer, Pan Am), not a person.
func titled(l *nameLists, text string, i int) (int, int, bool) {
	seq := sequence(text, i, 4)
	var caps []nameTok
	for _, t := range seq {
		if t.kind == tokCap {
			if l.notName(t.word) || places()[t.word] {
				break
			}
			caps = append(caps, t)
		}
	}
	if len(caps) == 0 || len(caps) > 3 {
		return 0, 0, false
	}
	last := caps[len(caps)-1]
	if len(caps) == 1 && len(seq) == 1 {
		if l.isWord(last.word) && !l.isLast(last.word) {
			return 0, 0, false
		}
	}
	if runsOn(text, last.end) {
		return 0, 0, false
	}
	return seq[0].start, last.end, true
}

// firstLast accepts a known first name, up to two middle names or
// initials, particles, a surname and an optional second surname.
func firstLast(l *nameLists, text string, first nameTok) (int, int, bool) {
	i := first.start
	if first.kind != tokCap {
		return 0, 0, false
	}
	if !l.isFirst(first.word) || calendar()[first.word] || afterThe(text, i) {
		return 0, 0, false
	}
	if first.end >= len(text) || text[first.end] != ' ' {
		return 0, 0, false
	}
	seq := sequence(text, first.end+1, 5)
	if len(seq) == 0 {
		return 0, 0, false
	}
	k := 0
	// Up to two middle names or initials, when a surname follows them.
	for k < 2 && k+1 < len(seq) && (seq[k].kind == tokInitial || seq[k].kind == tokCap && l.isFirst(seq[k].word)) {
		k++
	}
	for k < len(seq) && seq[k].kind == tokParticle {
		k++
	}
	if k >= len(seq) || seq[k].kind != tokCap {
		return 0, 0, false
	}
	// A first name that is also a word (Will, Grace) needs a known
	// surname; any other needs a surname that is not a common word.
	strict := l.isWord(first.word)
	if !surname(l, seq[k].word, strict) {
		return 0, 0, false
	}
	end := seq[k].end
	if k+1 < len(seq) && seq[k+1].kind == tokCap && surname(l, seq[k+1].word, true) {
		end = seq[k+1].end
	}
	if runsOn(text, end) {
		return 0, 0, false
	}
	return i, end, true
}

// surname reports whether w can be a surname: a known one, or, unless
// strict, any capitalised word that is not a common English word.
func surname(l *nameLists, w string, strict bool) bool {
	if l.notName(w) || places()[w] {
		return false
	}
	if l.isLast(w) {
		return true
	}
	return !strict && !l.isWord(w)
}

// afterThe reports whether the word at i follows "the": the Mona Lisa, the
// Washington Post.
func afterThe(text string, i int) bool {
	return strings.HasSuffix(text[:i], "the ") || strings.HasSuffix(text[:i], "The ")
}

// labelBefore reports whether the word at i follows a label that names a
// person: "Author: ", "@author ", `"name": "`, "written by ".
func labelBefore(text string, i int) bool {
	j := i
	if j > 0 && (text[j-1] == '"' || text[j-1] == '\'') {
		j--
	}
	for j > 0 && text[j-1] == ' ' {
		j--
	}
	if j == i {
		return false
	}
	sep := false
	if j > 0 && (text[j-1] == ':' || text[j-1] == '=') {
		j--
		sep = true
	}
	if j > 0 && (text[j-1] == '"' || text[j-1] == '\'') {
		j--
	}
	w := lastWord(text[:j])
	switch {
	case w == "by" && !sep:
		return lookup(byLabels, lastWord(strings.TrimSuffix(text[:j-len(w)], " ")))
	case w == "@author":
		return !sep
	}
	return sep && lookup(labels, w)
}

// lastWord returns the word (letters, digits, _ - @) at the end of s.
func lastWord(s string) string {
	k := len(s)
	for k > 0 && (isWord(s[k-1]) || s[k-1] == '-' || s[k-1] == '@') {
		k--
	}
	return s[k:]
}

// labelled accepts two to four capitalised words after a label, unless one
// is a common English word that is not a known name (Author: Open Source
// Team).
func labelled(l *nameLists, text string, i int) (int, int, bool) {
	seq := sequence(text, i, 4)
	caps := 0
	for _, t := range seq {
		if t.kind != tokCap {
			continue
		}
		caps++
		if l.notName(t.word) || places()[t.word] || l.isWord(t.word) && !l.isFirst(t.word) && !l.isLast(t.word) {
			return 0, 0, false
		}
	}
	if caps < 2 {
		return 0, 0, false
	}
	end := seq[len(seq)-1].end
	if runsOn(text, end) {
		return 0, 0, false
	}
	return i, end, true
}
