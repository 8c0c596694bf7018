package otlp

import (
	"net/http"
	"testing"
	"time"
)

// The tests retry at once: what they check is whether and what, not when.
func init() { retryFirst = time.Millisecond }

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	for h, want := range map[string]time.Duration{
		"":   0,
		"0":  0,
		"-3": 0,
		"7":  7 * time.Second,
		now.Add(90 * time.Second).Format(http.TimeFormat): 90 * time.Second,
		now.Add(-time.Minute).Format(http.TimeFormat):     0,
		"soon": 0,
	} {
		if got := retryAfter(h, now); got != want {
			t.Errorf("Retry-After %q: %v, want %v", h, got, want)
		}
	}
}
