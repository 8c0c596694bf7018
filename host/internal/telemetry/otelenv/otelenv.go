// Package otelenv reads the OpenTelemetry variables that the spans and
// metrics packages share the form of.
package otelenv

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Millis reads the variable name through getenv as a whole number of
// milliseconds above 0 (the form of OTEL_BSP_SCHEDULE_DELAY and
// OTEL_METRIC_EXPORT_INTERVAL), and stores it in dst; unset (or blank)
// leaves dst as it is. Any other value is an error naming the variable.
func Millis(getenv func(string) string, name string, dst *time.Duration) error {
	s := strings.TrimSpace(getenv(name))
	if s == "" {
		return nil
	}
	ms, err := strconv.Atoi(s)
	if err != nil || ms <= 0 {
		return fmt.Errorf("%s=%q: want milliseconds, a whole number above 0", name, s)
	}
	*dst = time.Duration(ms) * time.Millisecond
	return nil
}
