package pii

import "strings"

// findEmails appends the e-mail addresses in text to out.
//
// An address is local@domain where the local part is 1–64 of
// A-Z a-z 0-9 . _ % + - ' (no leading, trailing or doubled dot; a leading
// quote is taken as the string's) and the domain
// has at least two labels, ends in an alphabetic top-level label of two or
// more letters, and has no all-digit label. So user@localhost,
// pkg@v1.2.3-rc.1 (Go module versions), lodash@4.17.21 and icon@2x.png are
// not addresses. An SCP-style remote or URL login, user@host:path or
// scheme://user@host, names an account on a host rather than a mailbox and
// is left alone: git@github.com:org/repo survives. Addresses at names
// reserved for documentation and testing (example.com, example.net,
// example.org and their subdomains, and the .test, .example, .invalid and
// .localhost top-level domains, RFC 2606) reach no one, and are common in
// code and docs, so they are left alone too.
func findEmails(text string, out []Finding) []Finding {
	for off := 0; ; {
		i := strings.IndexByte(text[off:], '@')
		if i < 0 {
			return out
		}
		sign := off + i
		off = sign + 1
		start := sign
		for start > 0 && isLocal(text[start-1]) && sign-start < 64 {
			start--
		}
		if start > 0 && isLocal(text[start-1]) {
			continue // local part longer than 64
		}
		for start < sign && (text[start] == '.' || text[start] == '\'') {
			start++
		}
		end := sign + 1
		for end < len(text) && isDomain(text[end]) {
			end++
		}
		for end > sign+1 && (text[end-1] == '.' || text[end-1] == '-') {
			end--
		}
		if !validEmail(text[start:sign], text[sign+1:end]) {
			continue
		}
		if c := at(text, end); c == '_' || c == '@' || c == ':' && !isSpaceOrEnd(at(text, end+1)) {
			continue
		}
		if start >= 3 && text[start-3:start] == "://" {
			continue
		}
		out = append(out, Finding{Email, start, end})
		off = end
	}
}

func isLocal(c byte) bool {
	return isAlnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-' || c == '\''
}

func isDomain(c byte) bool { return isAlnum(c) || c == '.' || c == '-' }

func isSpaceOrEnd(c byte) bool {
	return c == 0 || c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

func validEmail(local, domain string) bool {
	if local == "" || strings.HasSuffix(local, ".") || strings.Contains(local, "..") {
		return false
	}
	if len(domain) > 253 {
		return false
	}
	labels := strings.Split(domain, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		if allDigits(l) {
			return false
		}
	}
	tld := labels[len(labels)-1]
	if len(tld) < 2 {
		return false
	}
	for i := 0; i < len(tld); i++ {
		if !isAlpha(tld[i]) {
			return false
		}
	}
	// Image density suffixes: icon@2x.png.
	if first := labels[0]; len(first) >= 2 && first[len(first)-1] == 'x' && allDigits(first[:len(first)-1]) {
		return false
	}
	return !reserved(labels)
}

// reserved reports whether a domain, split into labels, is reserved for
// documentation and testing.
func reserved(labels []string) bool {
	switch strings.ToLower(labels[len(labels)-1]) {
	case "test", "example", "invalid", "localhost":
		return true
	case "com", "net", "org":
		return strings.EqualFold(labels[len(labels)-2], "example")
	}
	return false
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}
