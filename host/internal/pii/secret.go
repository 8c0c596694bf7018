package pii

import (
	"math"
	"strings"
)

// A token is a secret in a well-known format: a literal, then a run of
// characters of one class, of bounded length. Matching is by hand, not by
// regular expressions, so that each try costs at most max bytes.
type token struct {
	lit      string
	class    func(byte) bool
	min, max int // the run's length after lit
	// tail, when set, is the set of bytes a token may not be followed by
	// (a longer word means it is something else).
	tail func(byte) bool
	// check, when set, vets the whole match.
	check func(string) bool
	// match, when set, replaces class, min and max: it returns the length
	// of the token at the start of s (which starts with lit), or 0.
	match func(s string) int
}

var tokens = func() []token {
	upperDigit := func(c byte) bool { return 'A' <= c && c <= 'Z' || isDigit(c) }
	alnumUnderscore := func(c byte) bool { return isWord(c) }
	alnumHyphen := func(c byte) bool { return isAlnum(c) || c == '-' }
	var out []token
	for _, lit := range []string{"AKIA", "ASIA"} { // AWS access key ids, temporary ones
		out = append(out, token{lit: lit, class: upperDigit, min: 16, max: 16, tail: isAlnum})
	}
	for _, lit := range []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"} { // GitHub
		out = append(out, token{lit: lit, class: isAlnum, min: 36, max: 255})
	}
	out = append(out, token{lit: "github_pat_", class: alnumUnderscore, min: 22, max: 255})
	for _, c := range "abposr" { // Slack
		out = append(out, token{lit: "xox" + string(c) + "-", class: alnumHyphen, min: 10, max: 250})
	}
	out = append(out,
		token{lit: "sk-", class: isBase64URL, min: 20, max: 250, check: mixed},      // OpenAI, Anthropic
		token{lit: "AIza", class: isBase64URL, min: 35, max: 35, tail: isBase64URL}, // Google API keys
		token{lit: "eyJ", match: jwt},
	)
	for _, lit := range []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_"} { // Stripe
		out = append(out, token{lit: lit, class: isAlnum, min: 16, max: 247})
	}
	return out
}()

func isBase64URL(c byte) bool { return isAlnum(c) || c == '_' || c == '-' }

// run returns the length of the run of class bytes at the start of s,
// counting no further than limit.
func run(s string, class func(byte) bool, limit int) int {
	n := 0
	for n < len(s) && n < limit && class(s[n]) {
		n++
	}
	return n
}

// jwt matches a JSON Web Token: eyJ header . eyJ payload . signature, the
// parts base64url (the signature may be empty, for alg "none").
func jwt(s string) int {
	const part = 8 << 10
	n := 3 + run(s[3:], isBase64URL, part)
	if n < 11 || at(s, n) != '.' || !strings.HasPrefix(s[n+1:], "eyJ") {
		return 0
	}
	m := n + 4 + run(s[n+4:], isBase64URL, part)
	if m < n+12 || at(s, m) != '.' {
		return 0
	}
	return m + 1 + run(s[m+1:], isBase64URL, part)
}

// mixed reports whether s holds both a letter and a digit.
func mixed(s string) bool {
	var letter, digit bool
	for i := 0; i < len(s); i++ {
		letter = letter || isAlpha(s[i])
		digit = digit || isDigit(s[i])
	}
	return letter && digit
}

// Bits of triggers: what may start at a byte.
const (
	startsToken = 1 << iota // a token literal
	startsWord              // a needle, in either case
)

// triggers maps each byte to what may start there, so findSecrets looks
// closer at only a few bytes in one pass; tokensBy and needlesBy (by
// lower-case byte) list the candidates.
var (
	triggers  [256]uint8
	tokensBy  [256][]token
	needlesBy [256][]string
)

func init() {
	for _, tk := range tokens {
		triggers[tk.lit[0]] |= startsToken
		tokensBy[tk.lit[0]] = append(tokensBy[tk.lit[0]], tk)
	}
	for _, n := range needles {
		triggers[n[0]] |= startsWord
		triggers[n[0]-'a'+'A'] |= startsWord
		needlesBy[n[0]] = append(needlesBy[n[0]], n)
	}
}

// findSecrets appends the secrets in text to out: tokens of well-known
// formats, private key blocks, and long high-entropy values assigned to
// names like api_key, token or password.
func findSecrets(text string, out []Finding) []Finding {
	tokenEnd, nameEnd := 0, 0 // ends of the last token found and name examined
	for i := 0; i < len(text); i++ {
		tr := triggers[text[i]]
		if tr == 0 {
			continue
		}
		if tr&startsToken != 0 && i >= tokenEnd {
			if e, ok := tokenAt(text, i); ok {
				out = append(out, Finding{Secret, i, e})
				tokenEnd = e
			}
		}
		if tr&startsWord != 0 && i >= nameEnd && needleAt(text, i) {
			ns, ne := i, i
			for ns > 0 && isNameByte(text[ns-1]) {
				ns--
			}
			for ne < len(text) && isNameByte(text[ne]) {
				ne++
			}
			nameEnd = ne
			if !secretName(text[ns:ne]) {
				continue
			}
			if s, e, ok := assignedValue(text, ne); ok {
				out = append(out, Finding{Secret, s, e})
			}
		}
	}
	return findPrivateKeys(text, out)
}

// tokenAt matches a token of a well-known format starting at text[s].
func tokenAt(text string, s int) (int, bool) {
	if isAlnum(at(text, s-1)) {
		return 0, false
	}
	rest := text[s:]
	for _, t := range tokensBy[text[s]] {
		if !strings.HasPrefix(rest, t.lit) {
			continue
		}
		var n int
		if t.match != nil {
			n = t.match(rest)
		} else if r := run(rest[len(t.lit):], t.class, t.max+1); r >= t.min && r <= t.max {
			n = len(t.lit) + r
		}
		if n == 0 || t.tail != nil && t.tail(at(rest, n)) || t.check != nil && !t.check(rest[:n]) {
			continue
		}
		return s + n, true
	}
	return 0, false
}

// needleAt reports whether a needle starts at text[i], in any case.
func needleAt(text string, i int) bool {
	for _, n := range needlesBy[text[i]|0x20] {
		if len(text)-i < len(n) {
			continue
		}
		j := 1
		for j < len(n) && text[i+j]|0x20 == n[j] {
			j++
		}
		if j == len(n) {
			return true
		}
	}
	return false
}

// findPrivateKeys finds PEM private key blocks (and PGP private key
// blocks), from the BEGIN line through the END line. The lines between must
// be key material: base64, or armor headers such as "Proc-Type: 4,ENCRYPTED",
// maybe behind view_file's "lineno|hash|" prefix. A block whose END line is
// missing (output cut short) runs through the key material there is. A
// BEGIN line followed by no key material (a parser that mentions the
// marker) is not a secret.
func findPrivateKeys(text string, out []Finding) []Finding {
	const begin, endMark = "-----BEGIN ", "-----END "
	for off := 0; ; {
		i := strings.Index(text[off:], begin)
		if i < 0 {
			return out
		}
		s := off + i
		off = s + len(begin)
		head, ok := pemLabel(text[off:])
		if !ok {
			continue
		}
		body := off + head
		if strings.HasPrefix(text[body:], `\n`) {
			// A key inside a JSON or other quoted string, with escaped line
			// breaks: "-----BEGIN PRIVATE KEY-----\nMIIE...\n-----END ...".
			if e, ok := escapedKey(text, body); ok {
				out = append(out, Finding{Secret, s, e})
				off = e
			}
			continue
		}
		e, next, material := keyLines(text, body)
		if material < 32 {
			continue
		}
		if line := stripViewPrefix(text[next:]); strings.HasPrefix(line, endMark) {
			if k, ok := pemLabel(line[len(endMark):]); ok {
				e = len(text) - len(line) + len(endMark) + k
			}
		}
		out = append(out, Finding{Secret, s, e})
		off = e
	}
}

// pemLabel matches "[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----" at the start of s
// and returns its length.
func pemLabel(s string) (int, bool) {
	const key, block = "PRIVATE KEY-----", "PRIVATE KEY BLOCK-----"
	for n := 0; n < len(s) && n < 40 && (s[n] >= 'A' && s[n] <= 'Z' || isDigit(s[n]) || s[n] == ' '); n++ {
		switch {
		case strings.HasPrefix(s[n:], key):
			return n + len(key), true
		case strings.HasPrefix(s[n:], block):
			return n + len(block), true
		}
	}
	return 0, false
}

// escapedKey reads key material with escaped line breaks (\n) from off
// through the END label, or through the material if the END label is
// missing.
func escapedKey(text string, off int) (int, bool) {
	const endMark = `\n-----END `
	end, material := off, 0
	for strings.HasPrefix(text[end:], `\n`) {
		i := end + 2
		for i < len(text) && isBase64(text[i]) {
			i++
		}
		if i == end+2 {
			break
		}
		material += i - end - 2
		end = i
	}
	if material < 32 {
		return 0, false
	}
	if strings.HasPrefix(text[end:], endMark) {
		if k, ok := pemLabel(text[end+len(endMark):]); ok {
			return end + len(endMark) + k, true
		}
	}
	return end, true
}

// keyLines reads the lines of key material that follow a BEGIN label ending
// at off (the rest of the BEGIN line must be blank). It returns the end of
// the last such line, the start of the first line that is not key material,
// and the number of base64 characters read.
func keyLines(text string, off int) (end, next, material int) {
	end, next = off, off
	pos := off
	for pos < len(text) && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\r') {
		pos++
	}
	if pos < len(text) && text[pos] != '\n' {
		return end, next, 0 // more on the BEGIN line: not a key block
	}
	next = min(pos+1, len(text))
	for pos = next; pos < len(text); pos = next {
		lineEnd := len(text)
		if nl := strings.IndexByte(text[pos:], '\n'); nl >= 0 {
			lineEnd = pos + nl
		}
		raw := strings.TrimRight(text[pos:lineEnd], "\r \t")
		line := stripViewPrefix(raw)
		switch {
		case line == "":
		case isKeyLine(line):
			end = pos + len(raw)
			material += keyMaterial(line)
		default:
			return end, pos, material
		}
		next = min(lineEnd+1, len(text))
	}
	return end, next, material
}

var viewPrefix = lazyRegexp(`^\s*\d+\|[0-9a-z]+\|`)

func stripViewPrefix(line string) string {
	if loc := viewPrefix().FindStringIndex(line); loc != nil {
		return line[loc[1]:]
	}
	return line
}

// isKeyLine reports whether line is base64 or an armor header.
func isKeyLine(line string) bool {
	for _, h := range []string{"Proc-Type:", "DEK-Info:", "Version:", "Comment:"} {
		if strings.HasPrefix(line, h) {
			return true
		}
	}
	return keyMaterial(line) == len(line)
}

// keyMaterial counts the base64 characters in s.
func keyMaterial(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if isBase64(s[i]) {
			n++
		}
	}
	return n
}

func isBase64(c byte) bool { return isAlnum(c) || c == '+' || c == '/' || c == '=' }

// Assignments: a name that says "secret" followed by a value:
// api_key = "...", token: ..., password=..., "clientSecret": "...",
// Authorization: Basic ..., or a name and value separated by spaces
// (secret ..., as in .netrc). The value must be at least 16 characters, mix
// letters and digits, and have high Shannon entropy; git object ids, SHA-256
// and SHA-512 hex digests, UUIDs and identifier- or path-like values are not
// secrets. Only the value is reported, so a redacted result still shows the
// name.

// secretWords are name components that mark the value as a secret on their
// own; keyWords mark it when followed by "key" (api_key, accessKey); "pass"
// marks it in a longer name (db_pass).
var (
	secretWords = map[string]bool{
		"secret": true, "secrets": true, "token": true, "password": true, "passwd": true,
		"pwd": true, "passphrase": true, "credential": true, "credentials": true,
		"bearer": true, "apikey": true, "authorization": true,
	}
	keyWords = map[string]bool{
		"api": true, "access": true, "secret": true, "private": true, "client": true,
		"auth": true, "signing": true, "encryption": true, "master": true, "session": true,
		"license": true, "app": true, "consumer": true, "account": true, "subscription": true,
	}
	// The lower-case needles whose presence starts a closer look; letters
	// only, as needleAt compares them with |0x20.
	needles = []string{"secret", "token", "pass", "pwd", "credential", "bearer", "key", "authorization"}
)

func isNameByte(c byte) bool { return isWord(c) || c == '-' || c == '.' }

// secretName reports whether an identifier names a secret, by its
// components: split at _ - . and lower-to-upper case changes.
func secretName(name string) bool {
	var parts []string
	start := 0
	for i := 1; i <= len(name); i++ {
		if i == len(name) || name[i] == '_' || name[i] == '-' || name[i] == '.' ||
			name[i] >= 'A' && name[i] <= 'Z' && name[i-1] >= 'a' && name[i-1] <= 'z' {
			if p := strings.Trim(name[start:i], "_-."); p != "" {
				parts = append(parts, strings.ToLower(p))
			}
			start = i
		}
	}
	for i, p := range parts {
		// "pass" alone is too common (PASS, FAIL); db_pass and smtpPass count.
		if secretWords[p] || p == "pass" && len(parts) > 1 || p == "key" && i > 0 && keyWords[parts[i-1]] {
			return true
		}
	}
	return false
}

// assignedValue finds the value after a name ending at off: an optional
// closing quote, a separator (= : := => or just spaces), an optional
// authorization scheme (Bearer, Basic, Token), an optional opening quote,
// then the value.
func assignedValue(text string, off int) (int, int, bool) {
	i := off
	if c := at(text, i); c == '"' || c == '\'' || c == '`' {
		i++
	}
	spaces := skipBlanks(text, i)
	i = spaces
	switch {
	case strings.HasPrefix(text[i:], ":="), strings.HasPrefix(text[i:], "=>"):
		i += 2
	case at(text, i) == '=' || at(text, i) == ':':
		i++
	case spaces == off:
		return 0, 0, false // name glued to something else
	}
	i = skipBlanks(text, i)
	for _, scheme := range []string{"bearer ", "basic ", "token "} { // HTTP authorization schemes
		if len(text)-i >= len(scheme) && strings.EqualFold(text[i:i+len(scheme)], scheme) {
			i = skipBlanks(text, i+len(scheme))
			break
		}
	}
	if c := at(text, i); c == '"' || c == '\'' || c == '`' {
		i++
	}
	s := i
	for i < len(text) && i-s < 1024 && isValueByte(text[i]) {
		if text[i] == '=' && i > s && isValueByte(at(text, i+1)) && at(text, i+1) != '=' {
			return 0, 0, false // a=b=c: not a value but more assignments
		}
		i++
	}
	if isValueByte(at(text, i)) {
		return 0, 0, false // longer than any secret
	}
	// A value followed by ( or [ is code: generate_token_v2(), cfg["key"].
	if c := at(text, i); c == '(' || c == '[' {
		return 0, 0, false
	}
	for i > s && text[i-1] == '.' { // end of a sentence
		i--
	}
	if !secretValue(text[s:i]) {
		return 0, 0, false
	}
	return s, i, true
}

func skipBlanks(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	return i
}

// isValueByte reports whether c may be part of a secret value. Not & (it
// separates query parameters), nor quotes, brackets, commas or semicolons.
func isValueByte(c byte) bool {
	if isAlnum(c) {
		return true
	}
	switch c {
	case '+', '/', '=', '_', '-', '.', '~', '!', '@', '#', '$', '%', '^', '*':
		return true
	}
	return false
}

var (
	uuidRE       = lazyRegexp(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	identifierRE = lazyRegexp(`^[A-Za-z]*[0-9]*(?:[._/-]+[A-Za-z]*[0-9]*)*$`)
)

// secretValue reports whether v looks like a generated secret.
func secretValue(v string) bool {
	if len(v) < 16 || !mixed(v) {
		return false
	}
	if isHex(v) && (len(v) == 40 || len(v) == 64 || len(v) == 128) {
		return false // git object ids, SHA-256 and SHA-512 digests
	}
	if v[0] == '*' || v[0] == '&' {
		return false // a pointer type or an address in code
	}
	if uuidRE().MatchString(v) || identifierRE().MatchString(v) {
		return false
	}
	if hasUpper(v) && hasLower(v) && wordLength(v) >= 3.5 {
		return false // camelCase words: testRSA2048PrivateKey, tls13.EarlySecret
	}
	return entropy(v) >= minEntropy(len(v), isHex(v))
}

func hasUpper(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return 'A' <= r && r <= 'Z' }) >= 0
}
func hasLower(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return 'a' <= r && r <= 'z' }) >= 0
}

// wordLength is the mean length of the words in s, cut as camelCase and
// snake_case names are: a capital and its lower-case letters, a run of
// capitals (less one before a lower-case letter), a run of lower-case
// letters, a run of digits. Names score 4 or more (test, RSA, 2048,
// Private, Key); random mixed-case strings of 20 or more characters score
// under 3.5 in 999 cases of 1000.
func wordLength(s string) float64 {
	words, chars := 0, 0
	isUpper := func(i int) bool { return i < len(s) && 'A' <= s[i] && s[i] <= 'Z' }
	isLower := func(i int) bool { return i < len(s) && 'a' <= s[i] && s[i] <= 'z' }
	for i := 0; i < len(s); {
		j := i + 1
		switch {
		case isUpper(i) && isLower(j):
			for isLower(j) {
				j++
			}
		case isUpper(i):
			for isUpper(j) && !isLower(j+1) {
				j++
			}
		case isLower(i):
			for isLower(j) {
				j++
			}
		case isDigit(s[i]):
			for j < len(s) && isDigit(s[j]) {
				j++
			}
		default:
			i++
			continue
		}
		words++
		chars += j - i
		i = j
	}
	if words == 0 {
		return 0
	}
	return float64(chars) / float64(words)
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHexByte(s[i]) {
			return false
		}
	}
	return true
}

func isHexByte(c byte) bool { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'f' }

// minEntropy is the Shannon entropy, in bits per character, below which a
// value of length n is not random enough to be a secret: 3.2 for 16
// characters, rising to 3.5 from 21. A random string of letters and digits
// scores about 3.7 at 16 characters and above 4.5 at 32; a repeated word or
// base64 of text scores lower. Hex has at most 4 bits per character, and
// random hex of 32 characters scores 3.4 to 3.8, so its bar is 3.0.
func minEntropy(n int, hex bool) float64 {
	if hex {
		return min(3.0, 0.75*math.Log2(float64(n)))
	}
	return min(3.5, 0.8*math.Log2(float64(n)))
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	var freq [256]int
	for i := 0; i < len(s); i++ {
		freq[s[i]]++
	}
	h, n := 0.0, float64(len(s))
	for _, f := range freq {
		if f > 0 {
			p := float64(f) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
