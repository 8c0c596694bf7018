package spans

import (
	"context"
	"sync"
)

// Recorder is a Processor keeping every span it is handed, in the order
// they ended, for tests to read. It is safe for concurrent use.
type Recorder struct {
	mu    sync.Mutex
	ended []*Data
}

// OnEnd keeps d.
func (r *Recorder) OnEnd(d *Data) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended = append(r.ended, d)
}

// Provider is a provider recording every span to r, whatever its
// parent's sampled flag, within the default limits.
func (r *Recorder) Provider() *Provider {
	return NewProvider(Config{Sampler: alwaysSample, Limits: DefaultConfig().Limits}, r)
}

// Shutdown does nothing.
func (r *Recorder) Shutdown(context.Context) error { return nil }

// Ended are the spans ended so far.
func (r *Recorder) Ended() []*Data {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Data(nil), r.ended...)
}
