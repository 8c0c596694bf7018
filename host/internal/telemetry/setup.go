package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"

	"go.opentelemetry.io/otel/trace"

	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/metrics"
	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/otlp"
	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/spans"
)

// Options configure Setup.
type Options struct {
	// OTLP exports traces and metrics over OTLP (--otel), to where the
	// OTEL_EXPORTER_OTLP_* variables say (by default http/protobuf to
	// localhost:4318). Without it, OTLP export is on when
	// OTEL_EXPORTER_OTLP_ENDPOINT (or the signal's own
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, ..._METRICS_ENDPOINT) is set.
	OTLP bool
	// Prometheus serves the metrics for scraping on Telemetry.Metrics
	// (--metrics).
	Prometheus bool
	// ServiceVersion is the resource's service.version.
	ServiceVersion string
	// Logger gets the exporters' errors (a collector that cannot be
	// reached); nil means slog.Default.
	Logger *slog.Logger
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
}

// Telemetry is what Setup made.
type Telemetry struct {
	// Instruments are nil when nothing is exported.
	Instruments *Instruments
	// Metrics serves the metrics in the Prometheus text format; nil
	// without Options.Prometheus.
	Metrics http.Handler
	// Traces and MetricsOTLP say what goes out over OTLP, for the log.
	Traces, MetricsOTLP bool

	shutdown []func(context.Context) error
}

// ServiceName is the resource's service.name unless OTEL_SERVICE_NAME
// says otherwise.
const ServiceName = "ramabana-mcp"

// Setup makes the providers and exporters opts and the environment ask
// for, and the instruments over them. With none asked for it makes
// nothing: Instruments and Metrics are nil, and Shutdown does nothing.
// Setting OTEL_SDK_DISABLED=true turns OTLP export off, whatever else
// says; OTEL_TRACES_EXPORTER or OTEL_METRICS_EXPORTER =none turns one
// signal's off.
func Setup(ctx context.Context, opts Options) (*Telemetry, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	t := &Telemetry{}
	var err error
	t.Traces, err = otlpWanted(opts, getenv, "TRACES")
	if err != nil {
		return nil, err
	}
	t.MetricsOTLP, err = otlpWanted(opts, getenv, "METRICS")
	if err != nil {
		return nil, err
	}
	if !t.Traces && !t.MetricsOTLP && !opts.Prometheus {
		return t, nil
	}
	onError := func(err error) { logger.Warn("telemetry export failed", "error", err) }
	res, err := resourceFromEnv(getenv, opts.ServiceVersion)
	if err != nil {
		return nil, err
	}

	// Each signal's configuration is read before anything is made: a
	// variable that cannot be used is an error at start, not a silent
	// default.
	var traceCfg, metricCfg *otlp.Config
	var spanCfg spans.Config
	if t.Traces {
		if traceCfg, err = otlp.ConfigFromEnv(otlp.Traces, getenv); err != nil {
			return nil, err
		}
		if spanCfg, err = spans.ConfigFromEnv(getenv); err != nil {
			return nil, err
		}
	}
	var metricsCfg metrics.Config
	if t.MetricsOTLP || opts.Prometheus {
		if metricsCfg, err = metrics.ConfigFromEnv(getenv, t.MetricsOTLP); err != nil {
			return nil, err
		}
	}
	if t.MetricsOTLP {
		if metricCfg, err = otlp.ConfigFromEnv(otlp.Metrics, getenv); err != nil {
			return nil, err
		}
	}

	var tp trace.TracerProvider
	if t.Traces {
		exp, err := otlp.NewTraceExporter(traceCfg, res, onError)
		if err != nil {
			return nil, fmt.Errorf("OTLP trace exporter: %w", err)
		}
		p := spans.NewProvider(spanCfg, spans.NewBatcher(exp, spanCfg.Batch, onError))
		t.shutdown = append(t.shutdown, p.Shutdown)
		tp = p
	}

	// The readers, by index in the registry: OTLP's (as its configuration
	// wants the metrics), then Prometheus' (cumulative, explicit buckets).
	var readers []metrics.ReaderConfig
	var metricExp *otlp.MetricExporter
	if t.MetricsOTLP {
		if metricExp, err = otlp.NewMetricExporter(metricCfg, res, onError); err != nil {
			_ = t.Shutdown(ctx)
			return nil, fmt.Errorf("OTLP metric exporter: %w", err)
		}
		readers = append(readers, metricExp.Reader())
	}
	if opts.Prometheus {
		readers = append(readers, metrics.ReaderConfig{})
	}
	var reg *metrics.Registry
	if len(readers) > 0 {
		reg = metrics.NewRegistry(metrics.Scope{Name: scope}, metricsCfg.Exemplars, readers...)
	}
	if metricExp != nil {
		t.shutdown = append(t.shutdown, metrics.NewPeriodic(reg, 0, metricExp, metricsCfg, onError).Shutdown)
	}
	if opts.Prometheus {
		// Served by promHandler (prometheus.go), with the process's own
		// figures (goroutines, memory, open files): what a load test
		// watches for growth.
		t.Metrics = promHandler{reg: reg, reader: len(readers) - 1, resource: res.Attributes}
	}
	t.Instruments = NewInstruments(tp, reg)
	return t, nil
}

// Shutdown flushes what is buffered to the exporters and stops them; ctx
// bounds the wait. The signals flush at once, each with the whole of ctx:
// a collector slow to take the spans leaves the metrics' last export its
// time. Safe on a Telemetry that exports nothing.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	errs := make([]error, len(t.shutdown))
	var wg sync.WaitGroup
	for i, f := range t.shutdown {
		wg.Go(func() { errs[i] = f(ctx) })
	}
	wg.Wait()
	t.shutdown = nil
	return errors.Join(errs...)
}

// otlpWanted says whether the signal (TRACES or METRICS) goes out over
// OTLP.
func otlpWanted(opts Options, getenv func(string) string, signal string) (bool, error) {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false, nil
	}
	switch v := strings.TrimSpace(getenv("OTEL_" + signal + "_EXPORTER")); v {
	case "", "otlp":
	case "none":
		return false, nil
	default:
		return false, fmt.Errorf("OTEL_%s_EXPORTER=%q: this server exports otlp or none", signal, v)
	}
	return opts.OTLP || getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT") != "", nil
}
