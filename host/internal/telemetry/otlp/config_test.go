package otlp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/otlp"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// TestConfigFromTheVariables: where each signal goes and how, as the
// specification reads the variables; a signal's own wins.
func TestConfigFromTheVariables(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		sig  otlp.Signal
		env  map[string]string
		want otlp.Config
	}{
		"defaults, http": {sig: otlp.Traces, want: otlp.Config{Protocol: "http/protobuf", URL: "http://localhost:4318/v1/traces"}},
		"defaults, grpc": {sig: otlp.Metrics, env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "GRPC"},
			want: otlp.Config{Protocol: "grpc", Target: "localhost:4317", Insecure: true}},
		"a base URL with a path": {sig: otlp.Metrics, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c.example/otlp/"},
			want: otlp.Config{Protocol: "http/protobuf", URL: "https://c.example/otlp/v1/metrics"}},
		"a signal's own URL is taken whole": {sig: otlp.Traces, env: map[string]string{
			"OTEL_EXPORTER_OTLP_ENDPOINT": "http://base:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t:9/custom"},
			want: otlp.Config{Protocol: "http/protobuf", URL: "http://t:9/custom"}},
		"a signal's own URL without a path": {sig: otlp.Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t:9"},
			want: otlp.Config{Protocol: "http/protobuf", URL: "http://t:9/"}},
		"the other signal's variables do not apply": {sig: otlp.Metrics, env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t:9", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"},
			want: otlp.Config{Protocol: "http/protobuf", URL: "http://localhost:4318/v1/metrics"}},
		"grpc over https": {sig: otlp.Traces, env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_ENDPOINT": "https://c.example"},
			want: otlp.Config{Protocol: "grpc", Target: "c.example"}}, // gRPC's default port, 443
		"grpc to host:port, insecure": {sig: otlp.Traces, env: map[string]string{
			"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4317", "OTEL_EXPORTER_OTLP_INSECURE": "true"},
			want: otlp.Config{Protocol: "grpc", Target: "collector:4317", Insecure: true}},
		"insecure does not undo https": {sig: otlp.Traces, env: map[string]string{
			"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector:4317", "OTEL_EXPORTER_OTLP_INSECURE": "true"},
			want: otlp.Config{Protocol: "grpc", Target: "collector:4317"}},
		"headers, timeout, compression": {sig: otlp.Metrics, env: map[string]string{
			"OTEL_EXPORTER_OTLP_HEADERS": "api-key=a%20b, x=1", "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT": "2500", "OTEL_EXPORTER_OTLP_COMPRESSION": "GZIP",
			"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE": "Delta", "OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION": "base2_exponential_bucket_histogram"},
			want: otlp.Config{Protocol: "http/protobuf", URL: "http://localhost:4318/v1/metrics", Headers: map[string]string{"api-key": "a b", "x": "1"},
				Timeout: 2500 * time.Millisecond, Gzip: true, Temporality: "delta", Exponential: true}},
		"a signal's own headers replace the common ones": {sig: otlp.Traces, env: map[string]string{
			"OTEL_EXPORTER_OTLP_HEADERS": "a=1", "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "b=2"},
			want: otlp.Config{Protocol: "http/protobuf", URL: "http://localhost:4318/v1/traces", Headers: map[string]string{"b": "2"}}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := otlp.ConfigFromEnv(c.sig, env(c.env))
			if err != nil {
				t.Fatal(err)
			}
			want := c.want
			if want.Timeout == 0 {
				want.Timeout = 10 * time.Second
			}
			if want.Temporality == "" {
				want.Temporality = "cumulative"
			}
			if diff := cmp.Diff(&want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConfigRefusesWhatItCannotUse: a bad value is an error naming its
// variable, and a header's value (a token) is never quoted.
func TestConfigRefusesWhatItCannotUse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		env  map[string]string
		want string
	}{
		"protocol":            {map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, `OTEL_EXPORTER_OTLP_PROTOCOL: OTLP protocol "http/json": use http/protobuf or grpc`},
		"endpoint scheme":     {map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "ftp://x"}, "OTEL_EXPORTER_OTLP_ENDPOINT"},
		"endpoint no scheme":  {map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "collector:4318"}, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"},
		"grpc endpoint":       {map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_ENDPOINT": "collector"}, "OTEL_EXPORTER_OTLP_ENDPOINT"},
		"timeout":             {map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "10s"}, "OTEL_EXPORTER_OTLP_TIMEOUT"},
		"compression":         {map[string]string{"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "zstd"}, "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION"},
		"insecure":            {map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_ENDPOINT": "c:1", "OTEL_EXPORTER_OTLP_INSECURE": "maybe"}, "OTEL_EXPORTER_OTLP_INSECURE"},
		"headers":             {map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "token=s3cret%zz"}, "OTEL_EXPORTER_OTLP_HEADERS: entry 1: the value is not percent-encoded"},
		"headers not k=v":     {map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "a=1,Authorization: Bearer s3cret"}, "entry 2 is not key=value"},
		"header name":         {map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "Authorization: Bearer s3cret=="}, "entry 1: the name is not a valid header name"},
		"header value":        {map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "k=s3cret%0Ax"}, "entry 1: the value holds what a header cannot"},
		"endpoint secret":     {map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "ftp://u:s3cret@c/?k=s3cret"}, "OTEL_EXPORTER_OTLP_ENDPOINT: not an http"},
		"certificate missing": {map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": filepath.Join(dir, "none.pem")}, "OTEL_EXPORTER_OTLP_CERTIFICATE"},
		"certificate not PEM": {map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": notPEM}, "no PEM certificate"},
		"client key alone":    {map[string]string{"OTEL_EXPORTER_OTLP_CLIENT_KEY": notPEM}, "OTEL_EXPORTER_OTLP_CLIENT_KEY is set without"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := otlp.ConfigFromEnv(otlp.Traces, env(c.env))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			for _, secret := range []string{"s3cret", "%zz", "%0A"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("the error quotes what may be a secret: %v", err)
				}
			}
		})
	}
	for _, v := range []string{"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", "OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION"} {
		if _, err := otlp.ConfigFromEnv(otlp.Metrics, env(map[string]string{v: "sometimes"})); err == nil || !strings.Contains(err.Error(), v) {
			t.Errorf("%s=sometimes: err = %v", v, err)
		}
	}
}
