package pii

// Phone numbers and payment card numbers are found in one scan for "digit
// spans": runs of digits, spaces, parentheses, dots and hyphens (plus a
// leading '+') holding at least nine digits. Only such spans, rare in code,
// are examined further.

// minSpanDigits is the fewest digits a phone number has; card numbers have more.
const minSpanDigits = 9

// findNumbers appends the phone and card numbers in text to out.
func findNumbers(text string, out []Finding) []Finding {
	for i := 0; i < len(text); {
		if !isDigit(text[i]) {
			i++
			continue
		}
		start := i
		if at(text, start-1) == '(' {
			start--
		}
		if at(text, start-1) == '+' {
			start--
		}
		end, digits := i, 0
		for end < len(text) && isSpanByte(text[end]) {
			if isDigit(text[end]) {
				digits++
			}
			end++
		}
		for !isDigit(text[end-1]) && text[end-1] != ')' {
			end--
		}
		i = end
		if digits < minSpanDigits {
			continue
		}
		out = findCards(text, start, end, out)
		out = findPhones(text, start, end, out)
	}
	return out
}

func isSpanByte(c byte) bool {
	return isDigit(c) || c == ' ' || c == '(' || c == ')' || c == '.' || c == '-'
}

// maxPhoneWords bounds the space-separated words one phone number spans
// (+33 6 12 34 56 78 has six).
const maxPhoneWords = 7

// maxPhoneLen bounds a phone number's length in bytes, with punctuation.
const maxPhoneLen = 40

// findPhones appends the phone numbers in the digit span text[start:end].
// It tries windows of whole space-separated words, longest first from each
// word, so that a number next to other numbers is still found.
func findPhones(text string, start, end int, out []Finding) []Finding {
	type word struct{ s, e, digits int }
	var words []word
	for i := start; i < end; {
		if text[i] == ' ' {
			i++
			continue
		}
		j, n := i, 0
		for j < end && text[j] != ' ' {
			if isDigit(text[j]) {
				n++
			}
			j++
		}
		words = append(words, word{i, j, n})
		i = j
	}
	for a := 0; a < len(words); a++ {
		digits := 0
		last := a
		for last < len(words) && last < a+maxPhoneWords && words[last].e-words[a].s <= maxPhoneLen {
			digits += words[last].digits
			last++
		}
		for b := last - 1; b >= a; b-- {
			if digits >= minSpanDigits && digits <= 15 {
				s, e := trimPhone(text, words[a].s, words[b].e)
				if isPhone(text[s:e]) && phoneBoundary(text, s, e) {
					out = append(out, Finding{Phone, s, e})
					a = b
					break
				}
			}
			digits -= words[b].digits
		}
	}
	return out
}

// trimPhone drops trailing dots and hyphens (sentence punctuation) and
// unbalanced outer parentheses from text[s:e].
func trimPhone(text string, s, e int) (int, int) {
	for s < e {
		switch w := text[s:e]; {
		case w[len(w)-1] == '.' || w[len(w)-1] == '-':
			e--
		case w[0] == '(' && count(w, '(') > count(w, ')'):
			s++
		case w[len(w)-1] == ')' && count(w, ')') > count(w, '('):
			e--
		default:
			return s, e
		}
	}
	return s, e
}

func count(s string, c byte) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
		}
	}
	return n
}

// phoneBoundary reports whether text[s:e] stands alone: not glued to a
// word, a version, a path, an amount or a time, and not one stretch of a
// longer row of numbers (a hex dump, a list of values).
func phoneBoundary(text string, s, e int) bool {
	if at(text, s-1) == ' ' && rowWord(wordBefore(text, s-1)) || at(text, e) == ' ' && rowWord(wordAfter(text, e+1)) {
		return false
	}
	switch prev := at(text, s-1); {
	case isWord(prev):
		return false
	case prev == ':' && isHexByte(at(text, s-2)) && (isHexByte(at(text, s-3)) || at(text, s-3) == ':'):
		return false // a MAC address, an IPv6 address or a time: 01:02-03-04-05-06
	case prev == '.' || prev == '-' || prev == '/' || prev == '\\' || prev == '@' ||
		prev == '$' || prev == '#' || prev == '%' || prev == '&' || prev == '*' ||
		prev == '+' || prev == '~' || prev == '^':
		return false
	}
	switch next := at(text, e); {
	case isWord(next):
		return false
	case next == '-' || next == '/' || next == '\\' || next == '@' || next == '%':
		return false
	case (next == ':' || next == '.' || next == ',') && isDigit(at(text, e+1)):
		return false
	}
	return true
}

// rowWord reports whether w, the word next to a number, shows the number is
// part of a row: w is all digits, or a byte or 16-bit word of a hex dump.
func rowWord(w string) bool {
	if allDigits(w) {
		return true
	}
	if len(w) != 2 && len(w) != 4 || !isHex(w) {
		return false
	}
	for i := 0; i < len(w); i++ {
		if isDigit(w[i]) {
			return true
		}
	}
	return false
}

// wordBefore returns the run of letters and digits ending at text[i-1].
func wordBefore(text string, i int) string {
	j := i
	for j > 0 && isAlnum(text[j-1]) {
		j--
	}
	return text[j:i]
}

// wordAfter returns the run of letters and digits starting at text[i].
func wordAfter(text string, i int) string {
	j := i
	for j < len(text) && isAlnum(text[j]) {
		j++
	}
	return text[i:j]
}

// phoneGroup is one group of digits in a phone number and the separator
// before it ("" for the first group or next to a parenthesis).
type phoneGroup struct {
	digits string
	paren  bool
	sep    string
}

// parsePhone splits w into digit groups. Separators are a single space,
// hyphen or dot, or nothing next to a parenthesised group.
func parsePhone(w string, buf []phoneGroup) (plus bool, gs []phoneGroup, ok bool) {
	gs = buf[:0]
	i := 0
	if w != "" && w[0] == '+' {
		plus, i = true, 1
	}
	sep := ""
	for {
		if i >= len(w) {
			return false, nil, false
		}
		switch {
		case w[i] == '(':
			j := i + 1
			for j < len(w) && isDigit(w[j]) {
				j++
			}
			if j == i+1 || j >= len(w) || w[j] != ')' {
				return false, nil, false
			}
			gs = append(gs, phoneGroup{w[i+1 : j], true, sep})
			i = j + 1
		case isDigit(w[i]):
			j := i
			for j < len(w) && isDigit(w[j]) {
				j++
			}
			gs = append(gs, phoneGroup{w[i:j], false, sep})
			i = j
		default:
			return false, nil, false
		}
		if i == len(w) {
			return plus, gs, true
		}
		sep = ""
		if c := w[i]; c == ' ' || c == '-' || c == '.' {
			sep, i = w[i:i+1], i+1
		}
	}
}

// isPhone reports whether w is written the way phone numbers are: an
// international number (+<country code> then groups), a North American
// number ((415) 555-0100, 415-555-0100, 415.555.0100, optionally after 1),
// or a national number with a trunk 0 (020 7946 0958, (020) 7946 0958,
// 06 12 34 56 78), with 9–15 digits in all.
func isPhone(w string) bool {
	var buf [maxPhoneLen / 2]phoneGroup
	plus, gs, ok := parsePhone(w, buf[:])
	if !ok {
		return false
	}
	n := 0
	for _, g := range gs {
		n += len(g.digits)
	}
	if n < 9 || n > 15 {
		return false
	}
	if plus {
		return international(gs)
	}
	return northAmerican(gs) || national(gs)
}

func international(gs []phoneGroup) bool {
	cc := gs[0]
	if cc.paren || cc.digits[0] == '0' {
		return false
	}
	if len(gs) == 1 {
		return len(cc.digits) >= 10 // E.164 written without separators: +14155550100
	}
	if len(cc.digits) > 3 {
		return false
	}
	rest := gs[1:]
	if rest[0].paren {
		if len(rest[0].digits) > 4 {
			return false
		}
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return false
	}
	for i, g := range rest {
		if g.paren || len(g.digits) > 8 {
			return false
		}
		if i >= 1 && (g.sep == "" || g.sep != rest[1].sep) {
			return false
		}
	}
	return true
}

func northAmerican(gs []phoneGroup) bool {
	lead := ""
	if len(gs) == 4 && !gs[0].paren && gs[0].digits == "1" {
		lead, gs = gs[1].sep, gs[1:]
		if lead == "" {
			return false
		}
	}
	if len(gs) != 3 || len(gs[0].digits) != 3 || len(gs[1].digits) != 3 || len(gs[2].digits) != 4 ||
		gs[1].paren || gs[2].paren || gs[0].digits[0] < '2' || gs[1].digits[0] < '2' {
		return false
	}
	if gs[0].paren {
		return (gs[1].sep == "" || gs[1].sep == " ") && gs[2].sep != "" && (lead == "" || lead == " ")
	}
	sep := gs[1].sep
	return (sep == "-" || sep == ".") && gs[2].sep == sep && (lead == "" || lead == sep || lead == " ")
}

func national(gs []phoneGroup) bool {
	first := gs[0].digits
	if len(first) < 2 || len(first) > 5 || first[0] != '0' || first[1] == '0' || len(gs) < 2 {
		return false
	}
	rest := gs[1:]
	if gs[0].paren && rest[0].sep != "" && rest[0].sep != " " {
		return false
	}
	n, sep := len(first), rest[len(rest)-1].sep
	for i, g := range rest {
		if g.paren || len(g.digits) < 2 || len(g.digits) > 8 {
			return false
		}
		if (i > 0 || !gs[0].paren) && g.sep != sep {
			return false
		}
		n += len(g.digits)
	}
	// At least ten digits: nine-digit ones are mostly US ZIP+4 codes,
	// 02110-1301.
	if n < 10 || n > 12 || sep == "" || gs[0].paren && sep == "." {
		return false
	}
	// Numbers written in pairs are French, 06 12 34 56 78: five pairs. More
	// are a MAC address (01.02.03.04.05.06) or a hex dump.
	pairs := true
	for _, g := range gs {
		pairs = pairs && len(g.digits) == 2
	}
	if pairs && len(gs) != 5 {
		return false
	}
	// Rows of four-digit groups are code points or hex dumps: 0399 0308 0301.
	quads := len(gs) >= 3
	for _, g := range gs {
		quads = quads && len(g.digits) == 4
	}
	if quads {
		return false
	}
	// Dotted quads are addresses, not numbers: 010.120.001.100.
	if sep == "." && len(gs) == 4 && len(first) <= 3 && len(rest[0].digits) <= 3 &&
		len(rest[1].digits) <= 3 && len(rest[2].digits) <= 3 {
		return false
	}
	return true
}

// findCards appends the payment card numbers in the digit span
// text[start:end]: runs of 13–19 digits, alone or grouped by single spaces or
// hyphens as cards are printed (4-4-4-4, 4-6-5, ...; 13–16 digits when not
// grouped), that pass the Luhn check and start with a known issuer prefix. A
// run glued to letters, underscores or more digits (hex strings,
// identifiers, decimals) or after a minus sign is skipped.
func findCards(text string, start, end int, out []Finding) []Finding {
	for i := start; i < end; {
		if !isDigit(text[i]) {
			i++
			continue
		}
		// One run: digit groups joined by single spaces or hyphens.
		var groups []int // start offsets; a group ends at the next non-digit
		rs := i
		j := i
		for {
			groups = append(groups, j)
			for j < end && isDigit(text[j]) {
				j++
			}
			if j+1 < end && (text[j] == ' ' || text[j] == '-') && isDigit(text[j+1]) {
				j++
				continue
			}
			break
		}
		re := j
		i = re
		if cardAttached(text, rs, re) {
			continue
		}
		out = cardWindows(text, groups, re, out)
	}
	return out
}

func cardAttached(text string, s, e int) bool {
	prev, next := at(text, s-1), at(text, e)
	switch {
	case isWord(prev) || isWord(next):
		return true
	case prev == '-' && !isAlnum(at(text, s-2)):
		return true // a negative number
	case (prev == '.' || prev == ',' || prev == '-') && isAlnum(at(text, s-2)):
		return true
	case (next == '.' || next == ',' || next == '-') && isAlnum(at(text, e+1)):
		return true
	}
	return false
}

// cardWindows tries runs of whole groups, longest first from each group.
// groups holds the groups' start offsets; the last group ends at end.
func cardWindows(text string, groups []int, end int, out []Finding) []Finding {
	groupEnd := func(k int) int {
		if k+1 < len(groups) {
			return groups[k+1] - 1
		}
		return end
	}
	for a := 0; a < len(groups); a++ {
		for b := min(len(groups), a+5) - 1; b >= a; b-- {
			s, e := groups[a], groupEnd(b)
			if isCard(text[s:e]) {
				out = append(out, Finding{Card, s, e})
				a = b
				break
			}
		}
	}
	return out
}

// isCard reports whether w (digits, maybe grouped by one kind of separator)
// is laid out like a card number, passes the Luhn check and has a known
// issuer prefix for its length.
func isCard(w string) bool {
	if len(w) < 13 || len(w) > 23 {
		return false
	}
	var (
		digits  [19]byte
		lens    [5]int
		nd, ng  int
		sep     byte
		current int
	)
	for i := 0; i < len(w); i++ {
		c := w[i]
		if isDigit(c) {
			if nd == len(digits) {
				return false
			}
			digits[nd] = c
			nd++
			current++
			continue
		}
		if sep != 0 && c != sep || ng == len(lens)-1 {
			return false
		}
		sep = c
		lens[ng] = current
		ng++
		current = 0
	}
	lens[ng] = current
	ng++
	if nd < 13 || !cardLayout(lens[:ng]) {
		return false
	}
	return issuer(string(digits[:nd])) && luhn(digits[:nd])
}

func cardLayout(lens []int) bool {
	switch {
	case len(lens) == 1:
		// Longer numbers without grouping are mostly 64-bit integers
		// (random seeds, hashes); cards of 17–19 digits are rare and
		// printed in groups.
		return lens[0] <= 16
	case len(lens) == 3 && lens[0] == 4 && lens[1] == 6 && (lens[2] == 5 || lens[2] == 4):
		return true // American Express 4-6-5, Diners Club 4-6-4
	}
	for i, l := range lens {
		if l != 4 && (i < len(lens)-1 || l < 1 || l > 4) {
			return false
		}
	}
	return true
}

// issuer reports whether d starts with a known issuer identification number
// for a card of its length.
func issuer(d string) bool {
	n := len(d)
	p2 := int(d[0]-'0')*10 + int(d[1]-'0')
	p3 := p2*10 + int(d[2]-'0')
	p4 := p3*10 + int(d[3]-'0')
	switch {
	case d[0] == '4':
		return n == 13 || n == 16 || n == 19 // Visa
	case p2 >= 51 && p2 <= 55, p4 >= 2221 && p4 <= 2720:
		return n == 16 // Mastercard
	case p2 == 34 || p2 == 37:
		return n == 15 // American Express
	case p4 == 6011, p3 >= 644 && p3 <= 649, p2 == 65:
		return n >= 16 // Discover
	case p4 >= 3528 && p4 <= 3589:
		return n >= 16 // JCB
	case p2 == 62:
		return n >= 16 // UnionPay
	case p3 >= 300 && p3 <= 305, p2 == 36, p2 == 38, p2 == 39:
		return n == 14 || n == 16 // Diners Club
	}
	return false
}

func luhn(digits []byte) bool {
	sum := 0
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if (len(digits)-1-i)%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}
