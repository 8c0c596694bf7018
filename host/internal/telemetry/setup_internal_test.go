package telemetry

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestShutdownFlushesTogether: each signal's flush gets the whole of the
// shutdown's time, so a slow one does not eat the other's: the second
// starts while the first still waits.
func TestShutdownFlushesTogether(t *testing.T) {
	t.Parallel()
	second := make(chan struct{})
	tel := &Telemetry{shutdown: []func(context.Context) error{
		func(ctx context.Context) error {
			select {
			case <-second:
				return nil
			case <-ctx.Done():
				return errors.New("the second flush never started while the first waited")
			}
		},
		func(context.Context) error { close(second); return nil },
	}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a bound, not a measure
	defer cancel()
	if err := tel.Shutdown(ctx); err != nil {
		t.Error(err)
	}
}
