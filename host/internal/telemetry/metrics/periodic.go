package metrics

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/otelenv"
)

// Config is what OTEL_METRIC_EXPORT_INTERVAL, OTEL_METRIC_EXPORT_TIMEOUT and
// OTEL_METRICS_EXEMPLAR_FILTER say.
type Config struct {
	Interval, Timeout time.Duration // 60 s and 30 s by default
	Exemplars         ExemplarFilter
}

// ConfigFromEnv reads the variables through getenv, the interval and
// timeout only for periodic exports; a value it cannot use is an error
// naming the variable.
func ConfigFromEnv(getenv func(string) string, periodic bool) (Config, error) {
	c := Config{Interval: time.Minute, Timeout: 30 * time.Second}
	if periodic {
		if err := otelenv.Millis(getenv, "OTEL_METRIC_EXPORT_INTERVAL", &c.Interval); err != nil {
			return Config{}, err
		}
		if err := otelenv.Millis(getenv, "OTEL_METRIC_EXPORT_TIMEOUT", &c.Timeout); err != nil {
			return Config{}, err
		}
	}
	switch s := strings.ToLower(strings.TrimSpace(getenv("OTEL_METRICS_EXEMPLAR_FILTER"))); s {
	case "", "trace_based":
	case "always_on":
		c.Exemplars = AlwaysOn
	case "always_off":
		c.Exemplars = AlwaysOff
	default:
		return Config{}, fmt.Errorf("OTEL_METRICS_EXEMPLAR_FILTER=%q: use trace_based, always_on or always_off", s)
	}
	return c, nil
}

// An Exporter sends collections somewhere (package otlp's, over OTLP).
type Exporter interface {
	Export(ctx context.Context, c Collection) error
	Shutdown(ctx context.Context) error
}

// Periodic collects one reader's metrics every interval and exports them
// from a goroutine of its own, each export bounded by timeout.
type Periodic struct {
	reg      *Registry
	reader   int
	exp      Exporter
	interval time.Duration
	timeout  time.Duration
	onError  func(error)

	mu      sync.Mutex      // held to collect on a tick, and by Shutdown to stop
	running context.Context // ended by Shutdown, with the export under way
	stop    context.CancelFunc
	done    chan struct{}
	once    sync.Once
}

// NewPeriodic starts exporting reg's metrics for reader to exp; an
// export's error goes to onError.
func NewPeriodic(reg *Registry, reader int, exp Exporter, cfg Config, onError func(error)) *Periodic {
	p := &Periodic{reg: reg, reader: reader, exp: exp, interval: cfg.Interval, timeout: cfg.Timeout, onError: onError,
		done: make(chan struct{})}
	p.running, p.stop = context.WithCancel(context.Background())
	go p.run()
	return p
}

func (p *Periodic) run() {
	defer close(p.done)
	t := time.NewTicker(p.interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			// A tick and Shutdown can be ready at once (a tick comes
			// while an export hangs); select picks either. A stopped
			// reader collects no more: what it would have taken is
			// Shutdown's last export's (under p.mu, which Shutdown takes
			// to stop).
			p.mu.Lock()
			if p.running.Err() != nil {
				p.mu.Unlock()
				return
			}
			c := p.reg.Collect(p.reader)
			p.mu.Unlock()
			// An export Shutdown cancels is no error to report.
			if err := p.send(p.running, c); err != nil && p.running.Err() == nil {
				p.onError(err)
			}
		case <-p.running.Done():
			return
		}
	}
}

// send exports c, unless it is empty, within the export timeout.
func (p *Periodic) send(ctx context.Context, c Collection) error {
	if len(c.Metrics) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	return p.exp.Export(ctx, c)
}

// Shutdown ends the periodic exports (one under way included), exports a
// last collection and shuts the exporter down; ctx bounds it all. The
// error is the last export's or the exporter's.
func (p *Periodic) Shutdown(ctx context.Context) error {
	first := false
	p.once.Do(func() { first = true })
	if !first {
		return nil
	}
	p.mu.Lock()
	p.stop()
	p.mu.Unlock()
	select {
	case <-p.done:
	case <-ctx.Done():
		return p.exp.Shutdown(ctx)
	}
	return errors.Join(p.send(ctx, p.reg.Collect(p.reader)), p.exp.Shutdown(ctx))
}
