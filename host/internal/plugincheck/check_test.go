package plugincheck

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ramabana/ramabana-mcp/internal/launch"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// testPlugin is internal/testplugin, built once; its behaviour comes from
// the name it runs under.
var testPlugin string

func TestMain(m *testing.M) {
	if devNull, err := os.Open(os.DevNull); err == nil {
		os.Stdin = devNull
	}
	proctest.RunWithTestPlugin(m, "testplugin", func(path string) { testPlugin = path })
}

// pluginAs links the test plugin under the name that picks mode.
func pluginAs(t *testing.T, mode string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ramabana-plugin-"+mode)
	if err := os.Symlink(testPlugin, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// check runs every check on the plugin of mode and returns the findings.
func check(t *testing.T, mode string) (failed int, findings []Finding) {
	t.Helper()
	opts := Options{Env: launch.Environ(os.Environ(), nil), StartTimeout: time.Minute, CallTimeout: 5 * time.Second}
	failed, err := Run(context.Background(), pluginAs(t, mode), opts, func(f Finding) { findings = append(findings, f) })
	if err != nil {
		t.Fatal(err)
	}
	return failed, findings
}

// A plugin that breaks one rule of the contract fails exactly the checks of
// that rule, each with a finding that names what to change; the others hold.
func TestEachBrokenRuleFailsItsCheck(t *testing.T) {
	for _, tc := range []struct {
		mode string
		// fails are the checks that must fail, and a phrase each finding says.
		fails map[string]string
	}{
		{"echo", nil},
		{"nokind", map[string]string{"start": "declares no kind"}},
		{"exits", map[string]string{"start": "no handshake"}},
		{"badcookie", map[string]string{"start": "no handshake"}},
		{"misdeclared", map[string]string{
			"tool moded":     "for skill tools only",
			"tool user_eval": "for context tools only",
			"unknown tool":   "NOT_FOUND",
		}},
		{"notoken", map[string]string{"call token": "UNAUTHENTICATED"}},
		// The crash is the one failure: the checks after it run on a new
		// launch, and do not fail for it.
		{"crashy", map[string]string{"tool crash": "exited while running it"}},
		{"stuck", map[string]string{"cancelled call": "must release what it holds"}},
		{"nolifeline", map[string]string{"lifeline": "exit when stdin reaches EOF"}},
		{"faulty", map[string]string{
			"tool fault":  "a Result with is_error, not a gRPC error",
			"tool badout": "does not match the output schema",
			"tool hang":   "no result within",
		}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			failed, findings := check(t, tc.mode)
			var failedChecks []string
			for _, f := range findings {
				t.Log(f)
				if f.Status != Fail {
					continue
				}
				failedChecks = append(failedChecks, f.Check)
				phrase, want := tc.fails[f.Check]
				if !want {
					t.Errorf("unexpected failure: %s", f)
				} else if !strings.Contains(f.Detail, phrase) {
					t.Errorf("%s: the finding does not say %q", f, phrase)
				}
			}
			for c := range tc.fails {
				if !slices.Contains(failedChecks, c) {
					t.Errorf("check %q held; want it to fail", c)
				}
			}
			if failed != len(failedChecks) {
				t.Errorf("Run counted %d failures, reported %d", failed, len(failedChecks))
			}
			if tc.fails == nil {
				// A healthy plugin passes every check the host relies on.
				var passed []string
				for _, f := range findings {
					if f.Status == Pass {
						passed = append(passed, f.Check)
					}
				}
				for _, c := range []string{"handshake", "description", "health", "tool echo", "tool slow", "unknown tool", "cancelled call", "call token", "lifeline", "shutdown"} {
					if !slices.Contains(passed, c) {
						t.Errorf("check %q did not pass: %v", c, passed)
					}
				}
			}
		})
	}
}

func TestRunRefusesWhatIsNotAnExecutable(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{dir, plain, filepath.Join(dir, "missing")} {
		if _, err := Run(context.Background(), path, Options{}, func(Finding) {}); err == nil {
			t.Errorf("Run(%s) = nil error; want a refusal", path)
		}
	}
}
