package apimessage

import (
	"strings"
	"testing"
)

func TestOf(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		body string
		n    int
		want string
	}{
		"openai":              {`{"error": {"message": "Incorrect API key", "type": "auth"}}`, 500, "Incorrect API key"},
		"ollama":              {`{"error": "model \"x\" not found"}`, 500, `model "x" not found`},
		"message":             {`{"message": "rate limited"}`, 500, "rate limited"},
		"fastapi detail":      {`{"detail": "Not Found"}`, 500, "Not Found"},
		"detail not a string": {`{"detail": [{"loc": ["body"]}]}`, 500, `{"detail": [{"loc": ["body"]}]}`},
		"not json":            {"<html>\n  Bad   gateway\n</html>", 500, "<html> Bad gateway </html>"},
		"empty":               {"", 500, ""},
		"cut":                 {`{"error": "` + strings.Repeat("é", 10) + `"}`, 5, "éé…"},
		"invalid utf-8":       {"bad \xff byte", 500, "bad ? byte"},
		"white space first":   {strings.Repeat(" ", 100) + "x" + strings.Repeat(" ", 100) + "tail", 3, "x t…"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := Of([]byte(tc.body), tc.n); got != tc.want {
				t.Errorf("Of(%q, %d) = %q, want %q", tc.body, tc.n, got, tc.want)
			}
		})
	}
}
