package otlp

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"
)

// Signal is what an exporter sends: its name in the variables and its
// place in the protocol.
type Signal struct {
	env    string // TRACES or METRICS: OTEL_EXPORTER_OTLP_<env>_*
	path   string // its OTLP/HTTP path under a base endpoint
	method string // its gRPC method
	noun   string // what it sends, in errors
}

// The two signals this package exports.
var (
	Traces  = Signal{env: "TRACES", path: "/v1/traces", method: "/opentelemetry.proto.collector.trace.v1.TraceService/Export", noun: "spans"}
	Metrics = Signal{env: "METRICS", path: "/v1/metrics", method: "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export", noun: "metric data points"}
)

// Config is where and how a signal goes, as the standard variables say.
type Config struct {
	// Protocol is "http/protobuf" or "grpc".
	Protocol string
	// URL is where OTLP/HTTP requests go, the whole URL.
	URL string
	// Target is the gRPC target (host:port) and Insecure whether it is
	// reached without TLS.
	Target   string
	Insecure bool
	// Headers go with every request (HTTP headers, gRPC metadata).
	Headers map[string]string
	// Timeout bounds one export, its retries included.
	Timeout time.Duration
	// Gzip compresses the requests.
	Gzip bool
	// TLS is the TLS configuration: nil for the system's roots and no
	// client certificate.
	TLS *tls.Config
	// Temporality is the metrics' preference: "cumulative" (the default),
	// "delta" or "lowmemory".
	Temporality string
	// Exponential aggregates histograms into base-2 exponential buckets
	// instead of the instrument's explicit ones.
	Exponential bool
}

// defaultTimeout is the specification's for an export.
const defaultTimeout = 10 * time.Second

// ConfigFromEnv reads the signal's configuration from the OTEL_EXPORTER_OTLP_*
// variables through getenv: a signal's own variable wins over the common
// one, which wins over the specification's default. A value it cannot use
// is an error naming the variable.
func ConfigFromEnv(sig Signal, getenv func(string) string) (*Config, error) {
	get := func(name string) (string, string) {
		for _, v := range []string{"OTEL_EXPORTER_OTLP_" + sig.env + "_" + name, "OTEL_EXPORTER_OTLP_" + name} {
			if s := strings.TrimSpace(getenv(v)); s != "" {
				return v, s
			}
		}
		return "", ""
	}
	c := &Config{Protocol: "http/protobuf", Timeout: defaultTimeout, Temporality: "cumulative"}
	if v, p := get("PROTOCOL"); p != "" {
		c.Protocol = strings.ToLower(p)
		if c.Protocol != "http/protobuf" && c.Protocol != "grpc" {
			return nil, fmt.Errorf("%s: OTLP protocol %q: use http/protobuf or grpc", v, p)
		}
	}
	hostPort, err := c.endpoint(sig, getenv)
	if err != nil {
		return nil, err
	}
	if v, s := get("INSECURE"); s != "" && hostPort {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, fmt.Errorf("%s=%q: not true or false", v, s)
		}
		c.Insecure = b
	}
	if v, s := get("HEADERS"); s != "" {
		h, err := parseHeaders(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v, err)
		}
		c.Headers = h
	}
	if v, s := get("TIMEOUT"); s != "" {
		ms, err := strconv.ParseUint(s, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%s=%q: not a number of milliseconds", v, s)
		}
		if ms > 0 {
			c.Timeout = time.Duration(ms) * time.Millisecond
		}
	}
	if v, s := get("COMPRESSION"); s != "" {
		switch strings.ToLower(s) {
		case "gzip":
			c.Gzip = true
		case "none":
		default:
			return nil, fmt.Errorf("%s=%q: use gzip or none", v, s)
		}
	}
	if err := c.tls(get); err != nil {
		return nil, err
	}
	if sig.env == Metrics.env {
		if s := strings.ToLower(strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE"))); s != "" {
			switch s {
			case "cumulative", "delta", "lowmemory":
				c.Temporality = s
			default:
				return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE=%q: use cumulative, delta or lowmemory", s)
			}
		}
		if s := strings.ToLower(strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION"))); s != "" {
			switch s {
			case "explicit_bucket_histogram":
			case "base2_exponential_bucket_histogram":
				c.Exponential = true
			default:
				return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION=%q: use explicit_bucket_histogram or base2_exponential_bucket_histogram", s)
			}
		}
	}
	return c, nil
}

// endpoint sets where the signal goes. Its errors do not quote the
// variable's value, which may hold a secret (user info, a query). Over HTTP a common endpoint is a
// base URL under which the signal's path goes; a signal's own is the whole
// URL. Over gRPC either is the collector's address: http:// is without TLS,
// https:// with it, and host:port alone with it unless ..._INSECURE says
// otherwise, which hostPort reports.
func (c *Config) endpoint(sig Signal, getenv func(string) string) (hostPort bool, err error) {
	own := "OTEL_EXPORTER_OTLP_" + sig.env + "_ENDPOINT"
	v, s, whole := own, strings.TrimSpace(getenv(own)), true
	if s == "" {
		v, s, whole = "OTEL_EXPORTER_OTLP_ENDPOINT", strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT")), false
	}
	if c.Protocol == "grpc" {
		if s == "" {
			s = "http://localhost:4317"
		}
		if !strings.Contains(s, "://") {
			if err := checkHostPort(s); err != nil {
				return false, fmt.Errorf("%s: %w", v, err)
			}
			c.Target = s
			return true, nil
		}
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return false, fmt.Errorf("%s: not an http:// or https:// URL, nor host:port", v)
		}
		// Without a port, gRPC's own default (443), as the OpenTelemetry
		// project's exporter has it.
		c.Target, c.Insecure = u.Host, u.Scheme == "http"
		return false, nil
	}
	if s == "" {
		s, whole = "http://localhost:4318", false
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false, fmt.Errorf("%s: not an http:// or https:// URL", v)
	}
	switch {
	case !whole:
		u.Path = path.Join("/", u.Path, sig.path)
	case u.Path == "":
		u.Path = "/"
	}
	c.URL = u.String()
	return false, nil
}

// checkHostPort checks s is host:port.
func checkHostPort(s string) error {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 {
		return fmt.Errorf("not host:port")
	}
	if _, err := strconv.ParseUint(s[i+1:], 10, 16); err != nil {
		return fmt.Errorf("not host:port")
	}
	return nil
}

// tls reads CERTIFICATE (the roots a collector's certificate is checked
// against) and CLIENT_CERTIFICATE with CLIENT_KEY (this server's own).
func (c *Config) tls(get func(string) (string, string)) error {
	var conf *tls.Config
	if v, file := get("CERTIFICATE"); file != "" {
		pem, err := os.ReadFile(file)
		if err != nil {
			return fmt.Errorf("%s: %w", v, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("%s=%q: no PEM certificate in it", v, file)
		}
		conf = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	vc, certFile := get("CLIENT_CERTIFICATE")
	vk, keyFile := get("CLIENT_KEY")
	switch {
	case certFile != "" && keyFile != "":
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return fmt.Errorf("%s and %s: %w", vc, vk, err)
		}
		if conf == nil {
			conf = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		conf.Certificates = []tls.Certificate{cert}
	case certFile != "":
		return fmt.Errorf("%s is set without OTEL_EXPORTER_OTLP_CLIENT_KEY", vc)
	case keyFile != "":
		return fmt.Errorf("%s is set without OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", vk)
	}
	c.TLS = conf
	return nil
}

// parseHeaders reads the W3C-baggage-like list the specification gives
// headers in: key=value pairs separated by commas, values percent-encoded.
// Its errors quote no value.
func parseHeaders(s string) (map[string]string, error) {
	h := map[string]string{}
	for i, pair := range strings.Split(s, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		// Nothing of an entry is quoted: one written wrong may be a
		// secret ("Authorization: Bearer abc=="), and so is a value.
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("entry %d is not key=value", i+1)
		}
		if !httpguts.ValidHeaderFieldName(k) {
			return nil, fmt.Errorf("entry %d: the name is not a valid header name", i+1)
		}
		val, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("entry %d: the value is not percent-encoded", i+1)
		}
		if !httpguts.ValidHeaderFieldValue(val) {
			return nil, fmt.Errorf("entry %d: the value holds what a header cannot (a control character)", i+1)
		}
		h[k] = val
	}
	return h, nil
}
