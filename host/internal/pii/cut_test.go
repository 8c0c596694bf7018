package pii

import (
	"strings"
	"testing"
)

func TestPrefix(t *testing.T) {
	t.Parallel()
	key := "-----BEGIN PRIVATE KEY-----\n" + strings.Repeat("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n", 30) + "-----END PRIVATE KEY-----\n"
	for name, tc := range map[string]struct {
		text string
		n    int
		want string
	}{
		"short enough":         {"mail jane.doe@acme.io", 100, "mail jane.doe@acme.io"},
		"inside an address":    {"mail jane.doe@acme.io now", 15, "mail "},
		"after an address":     {"mail jane.doe@acme.io now", 22, "mail jane.doe@acme.io "},
		"inside a card number": {"card 4111 1111 1111 1111.", 12, "card "},
		"inside a name":        {"by Dr. Jane Smith today", 12, "by Dr. "},
		"inside a character":   {"naïve", 3, "na"},
		"inside a key block":   {"key:\n" + key, 900, "key:\n"},
		"nothing to keep":      {"jane.doe@acme.io", 5, ""},
	} {
		t.Run(name, func(t *testing.T) {
			if got := Prefix(tc.text, tc.n); got != tc.want {
				t.Errorf("Prefix(%q, %d) = %q, want %q", tc.text, tc.n, got, tc.want)
			}
		})
	}
}
