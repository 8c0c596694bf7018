package supervise

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestRunningIsTheBinaryThisProcessRuns: the fingerprint of the running
// binary's file is Running; a copy of it (the same bytes, another file,
// as a new build installed over the path would be) is not, nor is a file
// that is not there.
func TestRunningIsTheBinaryThisProcessRuns(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if !FingerprintOf(Source{Path: self}).Running() {
		t.Errorf("the running binary's fingerprint is not Running")
	}
	if FingerprintOf(Source{Path: filepath.Join(t.TempDir(), "absent")}).Running() {
		t.Errorf("an absent file's fingerprint is Running")
	}
	if runtime.GOOS != "linux" {
		return // elsewhere the system does not say which file a process runs
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "copy")
	if err := os.WriteFile(cp, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if FingerprintOf(Source{Path: cp}).Running() {
		t.Errorf("a copy of the running binary is Running")
	}
}
