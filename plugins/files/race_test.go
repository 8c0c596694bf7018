//go:build linux

package files_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// raceDuration is how long each rename-exchange race runs:
// RAMABANA_RACE_SECONDS (float seconds), else 1 s, 0.2 s under -short.
func raceDuration(t *testing.T) time.Duration {
	t.Helper()
	if s := os.Getenv("RAMABANA_RACE_SECONDS"); s != "" {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < 0 {
			t.Fatalf("RAMABANA_RACE_SECONDS=%q: want seconds", s)
		}
		return time.Duration(f * float64(time.Second))
	}
	if testing.Short() {
		return 200 * time.Millisecond
	}
	return time.Second
}

// swapLoop exchanges a and b (a directory and a symlink) with
// renameat2(RENAME_EXCHANGE) until stop is closed, then puts them back as
// they were.
func swapLoop(t *testing.T, a, b string, stop <-chan struct{}) *sync.WaitGroup {
	t.Helper()
	if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
		t.Skipf("renameat2(RENAME_EXCHANGE) is not supported here: %v", err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		swapped := true
		for {
			select {
			case <-stop:
				if swapped {
					_ = unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
				}
				return
			default:
			}
			if unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE) == nil {
				swapped = !swapped
			}
		}
	}()
	return &wg
}

// TestRenameExchangeRace swaps a directory inside the root with a symlink
// to an outside directory, as fast as the kernel allows, while a tool works
// on a path through that directory. The tools must never read, create or
// change anything outside, nor leave a temporary file there.
func TestRenameExchangeRace(t *testing.T) {
	t.Parallel()
	const secret = "SECRET inside\n"
	tools := map[string]func(i int) (string, map[string]any){
		"view_file": func(int) (string, map[string]any) {
			return "view_file", map[string]any{"path": "d/f.txt"}
		},
		"create_file": func(i int) (string, map[string]any) {
			return "create_file", map[string]any{"path": fmt.Sprintf("d/new-%d.txt", i), "content": "x\n"}
		},
		"replace_text": func(i int) (string, map[string]any) {
			if i%2 == 0 {
				return "replace_text", map[string]any{"path": "d/f.txt", "old": "inside", "new": "INSIDE"}
			}
			return "replace_text", map[string]any{"path": "d/f.txt", "old": "INSIDE", "new": "inside"}
		},
	}
	d := raceDuration(t)
	for name, call := range tools {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, map[string]string{"d/f.txt": "inside\n"}, false)
			outside := filepath.Join(filepath.Dir(e.dir), "outside")
			writeFile(t, filepath.Join(outside, "f.txt"), secret, 0o644)
			if err := os.Symlink(outside, e.path("swap")); err != nil {
				t.Fatal(err)
			}
			stop := make(chan struct{})
			wg := swapLoop(t, e.path("d"), e.path("swap"), stop)
			leaks, calls, refused := 0, 0, 0
			deadline := time.Now().Add(d)
			for i := 0; time.Now().Before(deadline); i++ {
				tool, args := call(i)
				got, isErr := e.call(t, tool, args)
				calls++
				if isErr {
					refused++
				}
				if strings.Contains(got, "SECRET") {
					leaks++
				}
				if tool == "replace_text" {
					if b, err := os.ReadFile(filepath.Join(outside, "f.txt")); err == nil && string(b) != secret {
						leaks++
						_ = os.WriteFile(filepath.Join(outside, "f.txt"), []byte(secret), 0o644)
					}
				}
			}
			close(stop)
			wg.Wait()
			entries, err := os.ReadDir(outside)
			if err != nil {
				t.Fatal(err)
			}
			var extra []string
			for _, en := range entries {
				if en.Name() != "f.txt" {
					extra = append(extra, en.Name())
				}
			}
			if got := readString(t, filepath.Join(outside, "f.txt")); got != secret {
				leaks++
				t.Errorf("outside file changed: %q", got)
			}
			leaks += len(extra)
			t.Logf("%s: %d calls in %s, %d refused, %d outside reads, %d entries created outside", name, calls, d, refused, leaks-len(extra), len(extra))
			if leaks > 0 {
				t.Errorf("%d leaks (outside entries: %d, e.g. %v)", leaks, len(extra), extra[:min(len(extra), 5)])
			}
		})
	}
}
