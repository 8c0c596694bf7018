package lsp

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain runs the fake server when this binary is started as one, and
// otherwise the tests, checking that none leaves a goroutine behind.
func TestMain(m *testing.M) {
	if os.Getenv(fakeEnv) != "" {
		runFake()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}
