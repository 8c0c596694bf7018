// Package otlp exports the host's spans (package spans) and metrics
// (package metrics) over OTLP, over HTTP with protobuf bodies or over
// gRPC, configured by the standard OTEL_EXPORTER_OTLP_* variables.
//
// It stands in for the OpenTelemetry project's four OTLP exporters, which
// with their generated protocol code, gRPC gateway and configuration
// packages took a twentieth of the server's cold build and a tenth of
// every process's start (the server's and each bundled plugin's: they are
// the same binary, and every linked package's init runs in each). It
// writes the protocol's messages itself (encode.go) and sends them with
// the standard library's HTTP client or the gRPC client the plugin
// protocol links anyway.
//
// Contract:
//
//   - ConfigFromEnv reads, for a signal, OTEL_EXPORTER_OTLP_{,TRACES_,METRICS_}
//     ENDPOINT, PROTOCOL (http/protobuf, the default, or grpc), HEADERS,
//     TIMEOUT (milliseconds, 10 s by default), COMPRESSION (gzip or none),
//     CERTIFICATE, CLIENT_CERTIFICATE and CLIENT_KEY, and INSECURE (gRPC
//     to a host:port); for metrics also
//     OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE and
//     OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION. A signal's
//     own variable wins over the common one. A value it cannot use is an
//     error naming the variable, not ignored.
//   - Over HTTP the common endpoint is a base URL (/v1/traces or
//     /v1/metrics goes under it) and a signal's own the whole URL; the
//     default is http://localhost:4318. Over gRPC either is the collector's
//     address, http://localhost:4317 by default: http:// without TLS,
//     https:// with it, host:port with it unless INSECURE is true; without
//     a port, gRPC's default (443).
//   - One export is one request, bounded by TIMEOUT with its retries: a
//     network error, HTTP 429, 502, 503 or 504 or a retryable gRPC status
//     (ResourceExhausted only with a RetryInfo) is tried again after what
//     the collector asked for (Retry-After, RetryInfo) or about 1 s,
//     doubling, while the timeout leaves room; when it runs out between
//     tries, the error is the collector's last answer. Shutdown ends the
//     exports under way. Items a collector reports rejected (partial
//     success) go to the exporter's onError.
//   - No error quotes a header's value or an endpoint's user info or
//     query: they may hold secrets.
package otlp
