package spans

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// An Exporter sends ended spans somewhere (package otlp's, over OTLP).
type Exporter interface {
	ExportSpans(ctx context.Context, spans []*Data) error
	Shutdown(ctx context.Context) error
}

// Batcher is a Processor exporting spans in batches, as BatchConfig says,
// from a goroutine of its own. It is safe for concurrent use.
type Batcher struct {
	exp     Exporter
	cfg     BatchConfig
	onError func(error)

	queue chan *Data
	stop  chan struct{}
	done  chan struct{}

	mu      sync.RWMutex // held for writing once stopped
	stopped bool
	dropped atomic.Int64 // spans dropped since the last report
}

// NewBatcher starts a batcher handing spans to exp; an export's error, and
// the spans dropped on a full queue, go to onError.
func NewBatcher(exp Exporter, cfg BatchConfig, onError func(error)) *Batcher {
	b := &Batcher{
		exp: exp, cfg: cfg, onError: onError,
		queue: make(chan *Data, cfg.MaxQueueSize),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	go b.run()
	return b
}

// OnEnd queues d, or drops it when the queue is full or the batcher is
// shut down.
func (b *Batcher) OnEnd(d *Data) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.stopped {
		return
	}
	select {
	case b.queue <- d:
	default:
		b.dropped.Add(1)
	}
}

func (b *Batcher) run() {
	defer close(b.done)
	batch := make([]*Data, 0, b.cfg.MaxBatchSize)
	timer := time.NewTimer(b.cfg.ScheduleDelay)
	defer timer.Stop()
	for {
		select {
		case d := <-b.queue:
			batch = append(batch, d)
			if len(batch) < b.cfg.MaxBatchSize {
				continue
			}
		case <-timer.C:
		case <-b.stop:
			// Nothing more is queued once stop is closed: drain and go.
			for {
				select {
				case d := <-b.queue:
					batch = append(batch, d)
					if len(batch) == b.cfg.MaxBatchSize {
						batch = b.export(batch)
					}
					continue
				default:
				}
				b.export(batch)
				return
			}
		}
		batch = b.export(batch)
		timer.Reset(b.cfg.ScheduleDelay)
	}
}

// export sends batch, reports an error and the drops, and gives back the
// emptied batch.
func (b *Batcher) export(batch []*Data) []*Data {
	if dropped := b.dropped.Swap(0); dropped > 0 {
		b.onError(fmt.Errorf("%d spans dropped: more were waiting for export than OTEL_BSP_MAX_QUEUE_SIZE (%d) allows", dropped, b.cfg.MaxQueueSize))
	}
	if len(batch) == 0 {
		return batch
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.cfg.ExportTimeout)
	defer cancel()
	if err := b.exp.ExportSpans(ctx, batch); err != nil {
		b.onError(err)
	}
	clear(batch)
	return batch[:0]
}

// Shutdown exports what is queued and shuts the exporter down; ctx bounds
// the wait (the exporter's shutdown then ends an export under way).
func (b *Batcher) Shutdown(ctx context.Context) error {
	b.mu.Lock()
	if b.stopped {
		b.mu.Unlock()
		return nil
	}
	b.stopped = true
	b.mu.Unlock()
	close(b.stop)
	var waitErr error
	select {
	case <-b.done:
	case <-ctx.Done():
		waitErr = ctx.Err()
	}
	if err := b.exp.Shutdown(ctx); err != nil {
		return err
	}
	return waitErr
}
