package spans

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/ramabana/ramabana-mcp/host/internal/telemetry/otelenv"
)

// Config is what a Provider and its Batcher are made with.
type Config struct {
	Sampler Sampler
	Limits  Limits
	Batch   BatchConfig
}

// Limits bound what one span keeps. A negative value is no limit.
type Limits struct {
	Attributes          int // attributes of a span
	AttributeValueChars int // a string value's length, in characters (runes)
	Events, Links       int
	EventAttributes     int
	LinkAttributes      int
}

// BatchConfig is a Batcher's.
type BatchConfig struct {
	ScheduleDelay time.Duration // the longest a span waits in the queue
	ExportTimeout time.Duration // the longest one export takes
	MaxQueueSize  int           // spans waiting; more are dropped
	MaxBatchSize  int           // spans in one export
}

// DefaultConfig is the configuration with no variable set: every span
// under a sampled parent or starting a trace is recorded.
func DefaultConfig() Config {
	return Config{
		Sampler: Sampler{parentBased: true, ratio: 1},
		Limits:  Limits{Attributes: 128, AttributeValueChars: -1, Events: 128, Links: 128, EventAttributes: 128, LinkAttributes: 128},
		Batch:   BatchConfig{ScheduleDelay: 5 * time.Second, ExportTimeout: 30 * time.Second, MaxQueueSize: 2048, MaxBatchSize: 512},
	}
}

// ConfigFromEnv is DefaultConfig changed by the OTEL_TRACES_SAMPLER,
// OTEL_BSP_* and span limit variables getenv gives; a value it cannot use
// is an error naming the variable.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := DefaultConfig()
	var err error
	if c.Sampler, err = samplerFromEnv(getenv); err != nil {
		return Config{}, err
	}
	ints := []struct {
		dst   *int
		names []string // the first set wins
		limit bool     // a limit: 0 allows none, a negative number any
	}{
		{&c.Limits.Attributes, []string{"OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "OTEL_ATTRIBUTE_COUNT_LIMIT"}, true},
		{&c.Limits.AttributeValueChars, []string{"OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT"}, true},
		{&c.Limits.Events, []string{"OTEL_SPAN_EVENT_COUNT_LIMIT"}, true},
		{&c.Limits.Links, []string{"OTEL_SPAN_LINK_COUNT_LIMIT"}, true},
		{&c.Limits.EventAttributes, []string{"OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT"}, true},
		{&c.Limits.LinkAttributes, []string{"OTEL_LINK_ATTRIBUTE_COUNT_LIMIT"}, true},
		{&c.Batch.MaxQueueSize, []string{"OTEL_BSP_MAX_QUEUE_SIZE"}, false},
		{&c.Batch.MaxBatchSize, []string{"OTEL_BSP_MAX_EXPORT_BATCH_SIZE"}, false},
	}
	for _, v := range ints {
		for _, name := range v.names {
			s := strings.TrimSpace(getenv(name))
			if s == "" {
				continue
			}
			n, err := strconv.Atoi(s)
			switch {
			case v.limit && err != nil:
				return Config{}, fmt.Errorf("%s=%q: want a whole number (negative: no limit)", name, s)
			case !v.limit && (err != nil || n <= 0):
				return Config{}, fmt.Errorf("%s=%q: want a whole number above 0", name, s)
			}
			*v.dst = n
			break
		}
	}
	// The SDK's rule: a batch is never larger than the queue.
	c.Batch.MaxBatchSize = min(c.Batch.MaxBatchSize, c.Batch.MaxQueueSize)
	if err := otelenv.Millis(getenv, "OTEL_BSP_SCHEDULE_DELAY", &c.Batch.ScheduleDelay); err != nil {
		return Config{}, err
	}
	if err := otelenv.Millis(getenv, "OTEL_BSP_EXPORT_TIMEOUT", &c.Batch.ExportTimeout); err != nil {
		return Config{}, err
	}
	return c, nil
}

// A Sampler decides whether a span is recorded: by its parent's sampled
// flag when parent-based and the span has a parent, else by its trace id
// against the ratio.
type Sampler struct {
	parentBased bool
	ratio       float64 // 1 always, 0 never
}

// alwaysSample records every span (Recorder.Provider's).
var alwaysSample = Sampler{ratio: 1}

func (s Sampler) sample(parent trace.SpanContext, tid trace.TraceID) bool {
	if s.parentBased && parent.IsValid() {
		return parent.IsSampled()
	}
	switch {
	case s.ratio >= 1:
		return true
	case s.ratio <= 0:
		return false
	}
	return binary.BigEndian.Uint64(tid[8:16])>>1 < uint64(s.ratio*(1<<63))
}

func samplerFromEnv(getenv func(string) string) (Sampler, error) {
	name := strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER")))
	arg := strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER_ARG"))
	ratio := func() (float64, error) {
		if arg == "" {
			return 1, nil
		}
		r, err := strconv.ParseFloat(arg, 64)
		if err != nil || !(r >= 0 && r <= 1) { // NaN too
			return 0, fmt.Errorf("OTEL_TRACES_SAMPLER_ARG=%q: want a ratio from 0 to 1", arg)
		}
		return r, nil
	}
	switch name {
	case "", "parentbased_always_on":
		return Sampler{parentBased: true, ratio: 1}, nil
	case "parentbased_always_off":
		return Sampler{parentBased: true, ratio: 0}, nil
	case "always_on":
		return Sampler{ratio: 1}, nil
	case "always_off":
		return Sampler{ratio: 0}, nil
	case "traceidratio", "parentbased_traceidratio":
		r, err := ratio()
		return Sampler{parentBased: name != "traceidratio", ratio: r}, err
	}
	return Sampler{}, fmt.Errorf("OTEL_TRACES_SAMPLER=%q: use always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio", name)
}
