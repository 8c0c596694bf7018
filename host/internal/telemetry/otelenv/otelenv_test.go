package otelenv_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/otelenv"
)

func TestMillis(t *testing.T) {
	t.Parallel()
	for value, want := range map[string]time.Duration{"": time.Hour, "  ": time.Hour, "250": 250 * time.Millisecond, " 1 ": time.Millisecond} {
		d := time.Hour
		if err := otelenv.Millis(func(string) string { return value }, "X", &d); err != nil || d != want {
			t.Errorf("%q: %v, %v; want %v", value, d, err, want)
		}
	}
	for _, value := range []string{"0", "-5", "1.5", "5s", "1m"} {
		d := time.Hour
		err := otelenv.Millis(func(string) string { return value }, "OTEL_X", &d)
		if err == nil || !strings.Contains(err.Error(), "OTEL_X") || d != time.Hour {
			t.Errorf("%q: %v, %v; want an error naming OTEL_X and no change", value, d, err)
		}
	}
}
