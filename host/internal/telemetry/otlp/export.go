package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	grpcgzip "google.golang.org/grpc/encoding/gzip"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/metrics"
	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/spans"
)

// userAgent names the sender to the collector.
const userAgent = "ramabana-mcp OTLP exporter"

// Retries of a failed export: a network error, HTTP 429, 502, 503 or 504,
// or a gRPC status the specification calls retryable is tried again after
// retryFirst, doubling up to retryMax, each wait drawn from half to one and
// a half of that (or what the collector asked for: Retry-After, gRPC's
// RetryInfo), while the export's Timeout leaves room for it.
var retryFirst = time.Second

const retryMax = 30 * time.Second

var errShutdown = errors.New("OTLP exporter is shut down")

// exporter sends one signal's requests.
type exporter struct {
	sig     Signal
	cfg     *Config
	sender  sender
	onError func(error) // a collector's partial success

	// stop ends the exports under way when the exporter shuts down.
	stopped context.Context
	stop    context.CancelFunc

	mu   sync.Mutex
	done bool
}

// sender sends one request and gives back the response's body. An error
// it may be worth trying again is a *retryable.
type sender interface {
	send(ctx context.Context, body []byte) ([]byte, error)
	close() error
}

type retryable struct {
	err   error
	after time.Duration // what the collector asked for; 0: the backoff's
}

func (r *retryable) Error() string { return r.err.Error() }
func (r *retryable) Unwrap() error { return r.err }

func newExporter(sig Signal, cfg *Config, onError func(error)) (*exporter, error) {
	if onError == nil {
		onError = func(error) {}
	}
	e := &exporter{sig: sig, cfg: cfg, onError: onError}
	e.stopped, e.stop = context.WithCancel(context.Background())
	if cfg.Protocol == "grpc" {
		s, err := newGRPCSender(cfg, sig.method)
		if err != nil {
			return nil, err
		}
		e.sender = s
	} else {
		e.sender = newHTTPSender(cfg)
	}
	return e, nil
}

// export sends body, trying again as the retry policy says, within the
// configured timeout; Shutdown ends it. When the time runs out between
// tries, the error is the collector's last answer.
func (e *exporter) export(ctx context.Context, body []byte) error {
	e.mu.Lock()
	done := e.done
	e.mu.Unlock()
	if done {
		return errShutdown
	}
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	defer context.AfterFunc(e.stopped, cancel)()
	wait := retryFirst
	var last error // the collector's last answer
	for {
		resp, err := e.sender.send(ctx, body)
		if err == nil {
			if n, msg := partialSuccess(resp); n > 0 || msg != "" {
				e.onError(fmt.Errorf("OTLP collector rejected %d %s: %s", n, e.sig.noun, msg))
			}
			return nil
		}
		if e.stopped.Err() != nil {
			return fmt.Errorf("%w: %w", errShutdown, err)
		}
		if ctx.Err() != nil && last != nil { // ended in a second try or later
			return fmt.Errorf("%w (tried again until: %v)", last, ctx.Err())
		}
		r, ok := errors.AsType[*retryable](err)
		if !ok || ctx.Err() != nil {
			return err
		}
		last = err
		d := r.after
		if d <= 0 {
			d = wait/2 + rand.N(wait) // half to one and a half of it
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
			return err
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			if e.stopped.Err() != nil {
				return fmt.Errorf("%w: %w", errShutdown, err)
			}
			return err
		case <-t.C:
		}
		wait = min(2*wait, retryMax)
	}
}

// shutdown ends the exports under way, fails the later ones and closes
// the connection.
func (e *exporter) shutdown(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.done {
		return nil
	}
	e.done = true
	e.stop()
	if err := e.sender.close(); err != nil {
		return err
	}
	return ctx.Err()
}

// TraceExporter sends spans over OTLP. It is a spans.Exporter.
type TraceExporter struct {
	e   *exporter
	res Resource
}

// NewTraceExporter makes an exporter of res's spans to where cfg says; a
// collector's report of spans it rejected goes to onError (nil: dropped).
func NewTraceExporter(cfg *Config, res Resource, onError func(error)) (*TraceExporter, error) {
	e, err := newExporter(Traces, cfg, onError)
	if err != nil {
		return nil, err
	}
	return &TraceExporter{e: e, res: res}, nil
}

// ExportSpans sends spans in one request; nothing when there is none.
func (t *TraceExporter) ExportSpans(ctx context.Context, ss []*spans.Data) error {
	body := TracesRequest(t.res, ss)
	if body == nil {
		return nil
	}
	return t.e.export(ctx, body)
}

// Shutdown stops the exporter: later exports fail.
func (t *TraceExporter) Shutdown(ctx context.Context) error { return t.e.shutdown(ctx) }

// MetricExporter sends metrics over OTLP. It is a metrics.Exporter.
type MetricExporter struct {
	e   *exporter
	res Resource
}

// NewMetricExporter makes an exporter of res's metrics to where cfg says;
// a collector's report of points it rejected goes to onError (nil:
// dropped).
func NewMetricExporter(cfg *Config, res Resource, onError func(error)) (*MetricExporter, error) {
	e, err := newExporter(Metrics, cfg, onError)
	if err != nil {
		return nil, err
	}
	return &MetricExporter{e: e, res: res}, nil
}

// Reader is how the configuration wants the metrics aggregated: the
// temporality preference's ("delta" makes counters and histograms delta,
// observed or not; "lowmemory" only those measured as they happen;
// "cumulative" none), and histograms base-2 exponential when asked.
func (m *MetricExporter) Reader() metrics.ReaderConfig {
	pref := m.e.cfg.Temporality
	return metrics.ReaderConfig{
		Temporality: func(k metrics.Kind) metrics.Temporality {
			switch {
			case pref == "delta" && k != metrics.KindObservableGauge,
				pref == "lowmemory" && (k == metrics.KindCounter || k == metrics.KindHistogram):
				return metrics.Delta
			}
			return metrics.Cumulative
		},
		Exponential: m.e.cfg.Exponential,
	}
}

// Export sends c in one request; nothing when it holds no metric.
func (m *MetricExporter) Export(ctx context.Context, c metrics.Collection) error {
	if len(c.Metrics) == 0 {
		return nil
	}
	return m.e.export(ctx, MetricsRequest(m.res, c))
}

// Shutdown stops the exporter: later exports fail.
func (m *MetricExporter) Shutdown(ctx context.Context) error { return m.e.shutdown(ctx) }

// httpSender posts requests over OTLP/HTTP with protobuf bodies.
type httpSender struct {
	url     string
	shown   string // url as errors show it: no user info, no query
	headers map[string]string
	gzip    bool
	client  *http.Client
}

func newHTTPSender(cfg *Config) *httpSender {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if cfg.TLS != nil {
		tr.TLSClientConfig = cfg.TLS.Clone()
	}
	return &httpSender{url: cfg.URL, shown: shownURL(cfg.URL), headers: cfg.Headers, gzip: cfg.Gzip, client: &http.Client{Transport: tr}}
}

// shownURL is raw without what may be a secret: its user info and query.
func shownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the collector"
	}
	return u.Scheme + "://" + u.Host + u.Path
}

// maxResponse bounds what is read of a collector's answer.
const maxResponse = 64 << 10

func (s *httpSender) send(ctx context.Context, body []byte) ([]byte, error) {
	if s.gzip {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(body) // a bytes.Buffer takes all
		_ = zw.Close()
		body = buf.Bytes()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range s.headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("User-Agent", userAgent)
	if s.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := s.client.Do(req)
	if err != nil {
		// The URL in the client's error may hold a secret.
		if uerr, ok := errors.AsType[*url.Error](err); ok {
			err = uerr.Err
		}
		err = fmt.Errorf("OTLP collector at %s: %w", s.shown, err)
		if networkError(err) {
			return nil, &retryable{err: err}
		}
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	protobuf := resp.Header.Get("Content-Type") == "application/x-protobuf"
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		if err != nil || !protobuf {
			return nil, nil // sent; only the answer's details are lost
		}
		return data, nil
	case resp.StatusCode == http.StatusTooManyRequests, resp.StatusCode == http.StatusBadGateway,
		resp.StatusCode == http.StatusServiceUnavailable, resp.StatusCode == http.StatusGatewayTimeout:
		return nil, &retryable{err: fmt.Errorf("OTLP collector at %s answered %s", s.shown, resp.Status), after: retryAfter(resp.Header.Get("Retry-After"), time.Now())}
	default:
		msg := ""
		if protobuf {
			msg = statusMessage(data)
		}
		return nil, fmt.Errorf("OTLP collector at %s answered %s%s", s.shown, resp.Status, msg)
	}
}

// networkError says whether err is one of the network's, which a later try
// may not meet (a refused or reset connection, a timeout), and not one that
// would recur (a certificate refused, by either side: the collector's
// refusal of ours comes as a TLS alert, a "remote error"; a handshake with
// a server that does not speak TLS).
func networkError(err error) bool {
	if oe, ok := errors.AsType[*net.OpError](err); ok {
		return oe.Op != "remote error"
	}
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		return true
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

func (s *httpSender) close() error {
	s.client.CloseIdleConnections()
	return nil
}

// retryAfter reads a Retry-After header, in seconds or as an HTTP date,
// at now; 0 for none.
func retryAfter(h string, now time.Time) time.Duration {
	if n, err := strconv.Atoi(h); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// statusMessage is the message of a google.rpc.Status an OTLP/HTTP
// collector answers a failure with (field 2), as ": message"; "" if the
// body holds none.
func statusMessage(body []byte) string {
	var msg string
	eachField(body, func(num protowire.Number, typ protowire.Type, _ uint64, s []byte) bool {
		if num == 2 && typ == protowire.BytesType {
			msg = string(s)
			return false
		}
		return true
	})
	if msg == "" {
		return ""
	}
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return ": " + msg
}

// grpcSender calls the collector's Export method with the request's
// bytes as they are.
type grpcSender struct {
	conn   *grpc.ClientConn
	method string
	md     metadata.MD
	gzip   bool
}

func newGRPCSender(cfg *Config, method string) (*grpcSender, error) {
	creds := insecure.NewCredentials()
	if !cfg.Insecure {
		conf := cfg.TLS
		if conf == nil {
			conf = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		creds = credentials.NewTLS(conf.Clone())
	}
	conn, err := grpc.NewClient(cfg.Target, grpc.WithTransportCredentials(creds), grpc.WithUserAgent(userAgent))
	if err != nil {
		return nil, fmt.Errorf("OTLP collector %q: %w", cfg.Target, err)
	}
	s := &grpcSender{conn: conn, method: method, gzip: cfg.Gzip}
	if len(cfg.Headers) > 0 {
		s.md = metadata.New(cfg.Headers)
	}
	return s, nil
}

// rawCodec passes a request's bytes through as they are and keeps the
// response's; it is named proto, as the collector expects.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return *v.(*[]byte), nil }
func (rawCodec) Unmarshal(data []byte, v any) error {
	*v.(*[]byte) = append([]byte(nil), data...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

func (s *grpcSender) send(ctx context.Context, body []byte) ([]byte, error) {
	if s.md != nil {
		ctx = metadata.NewOutgoingContext(ctx, s.md)
	}
	opts := []grpc.CallOption{grpc.ForceCodec(rawCodec{})}
	if s.gzip {
		opts = append(opts, grpc.UseCompressor(grpcgzip.Name))
	}
	var resp []byte
	err := s.conn.Invoke(ctx, s.method, &body, &resp, opts...)
	if err == nil {
		return resp, nil
	}
	st := status.Convert(err)
	after, told := retryDelay(st)
	switch st.Code() {
	case codes.Canceled, codes.DeadlineExceeded, codes.Aborted, codes.OutOfRange, codes.Unavailable, codes.DataLoss:
		return nil, &retryable{err: err, after: after}
	case codes.ResourceExhausted:
		if told { // the specification's condition: the server said when
			return nil, &retryable{err: err, after: after}
		}
	}
	return nil, err
}

// maxDelaySeconds bounds a RetryInfo's seconds so that the delay does not
// overflow; it is far past any export's timeout.
const maxDelaySeconds = math.MaxInt64/int64(time.Second) - 1

// retryDelayType is the type URL of google.rpc.RetryInfo in a status's
// details.
const retryDelayType = "type.googleapis.com/google.rpc.RetryInfo"

// retryDelay is the delay a status's RetryInfo detail asks for, read off
// its bytes (retry_delay, field 1: a Duration of seconds, field 1, and
// nanos, field 2), and whether it had one.
func retryDelay(st *status.Status) (time.Duration, bool) {
	for _, d := range st.Proto().GetDetails() {
		if d.GetTypeUrl() != retryDelayType {
			continue
		}
		var delay time.Duration
		whole := eachField(d.GetValue(), func(num protowire.Number, typ protowire.Type, _ uint64, dur []byte) bool {
			if num == 1 && typ == protowire.BytesType {
				eachField(dur, func(num protowire.Number, typ protowire.Type, v uint64, _ []byte) bool {
					switch { // bounded against overflow only: the export's deadline bounds the wait
					case num == 1 && typ == protowire.VarintType:
						delay += time.Duration(min(int64(v), maxDelaySeconds)) * time.Second //nolint:gosec // bounded
					case num == 2 && typ == protowire.VarintType:
						delay += time.Duration(min(int64(v), int64(time.Second))) //nolint:gosec // bounded
					}
					return true
				})
			}
			return true
		})
		if !whole {
			return 0, true
		}
		return max(delay, 0), true
	}
	return 0, false
}

func (s *grpcSender) close() error { return s.conn.Close() }
