package telemetry

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResource(t *testing.T) {
	t.Parallel()
	get := func(vars map[string]string) map[string]string {
		t.Helper()
		res, err := resourceFromEnv(func(k string) string { return vars[k] }, "1.2.3")
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, kv := range res.Attributes.ToSlice() {
			m[string(kv.Key)] = kv.Value.String()
		}
		return m
	}
	want := map[string]string{
		"service.name": "ramabana-mcp", "service.version": "1.2.3",
		"telemetry.sdk.name": "ramabana-mcp", "telemetry.sdk.language": "go", "telemetry.sdk.version": "1.2.3",
	}
	if diff := cmp.Diff(want, get(nil)); diff != "" {
		t.Errorf("default resource (-want +got):\n%s", diff)
	}
	// The variable's pairs win, their values percent-decoded; the service
	// name's own variable wins over all.
	want["service.version"] = "canary"
	want["deployment.environment"] = "a b,c"
	want["service.name"] = "mine"
	want["raw"] = "100%"
	got := get(map[string]string{
		"OTEL_RESOURCE_ATTRIBUTES": " service.version=canary, deployment.environment=a%20b%2Cc,service.name=theirs,raw=100%",
		"OTEL_SERVICE_NAME":        "mine",
	})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resource from the variables (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"novalue", "=x"} {
		_, err := resourceFromEnv(func(k string) string {
			if k == "OTEL_RESOURCE_ATTRIBUTES" {
				return bad
			}
			return ""
		}, "")
		if err == nil || !strings.Contains(err.Error(), "OTEL_RESOURCE_ATTRIBUTES") {
			t.Errorf("OTEL_RESOURCE_ATTRIBUTES=%s: %v", bad, err)
		}
	}
}
