package telemetry

import (
	"fmt"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/attribute"

	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/otlp"
)

// resourceFromEnv is what the telemetry is about: service.name
// (ServiceName), service.version, telemetry.sdk.{name,language,version},
// then OTEL_RESOURCE_ATTRIBUTES (key=value pairs, comma-separated, values
// percent-encoded), which win, and OTEL_SERVICE_NAME, which wins over all.
// A pair without a key and = is an error naming the variable.
func resourceFromEnv(getenv func(string) string, version string) (otlp.Resource, error) {
	attrs := []attribute.KeyValue{
		attribute.String("service.name", ServiceName),
		attribute.String("service.version", version),
		attribute.String("telemetry.sdk.name", ServiceName),
		attribute.String("telemetry.sdk.language", "go"),
		attribute.String("telemetry.sdk.version", version),
	}
	if raw := strings.TrimSpace(getenv("OTEL_RESOURCE_ATTRIBUTES")); raw != "" {
		for pair := range strings.SplitSeq(raw, ",") {
			k, v, ok := strings.Cut(pair, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				return otlp.Resource{}, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %q is not key=value", strings.TrimSpace(pair))
			}
			v = strings.TrimSpace(v)
			if decoded, err := url.PathUnescape(v); err == nil {
				v = decoded // a value that is not percent-encoded is kept as written, as the SDK does
			}
			attrs = append(attrs, attribute.String(k, v))
		}
	}
	if name := strings.TrimSpace(getenv("OTEL_SERVICE_NAME")); name != "" {
		attrs = append(attrs, attribute.String("service.name", name))
	}
	// A set keeps the last value of a key.
	return otlp.Resource{Attributes: attribute.NewSet(attrs...)}, nil
}
