package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ramabana/ramabana-mcp/host"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// fetch sends method to url with the token (none when empty) and returns
// the status and the body.
func fetch(t *testing.T, method, url, token string) (int, string) {
	t.Helper()
	r, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// readiness is /readyz's body.
type readiness struct {
	Status  string `json:"status"`
	Ready   bool   `json:"ready"`
	Plugins []struct {
		Name     string `json:"name"`
		State    string `json:"state"`
		Restarts *int   `json:"restarts"`
	} `json:"plugins"`
	Upstreams []struct {
		ID    string `json:"id"`
		State string `json:"state"`
	} `json:"upstreams"`
}

// noPaths fails the test when body holds any of paths, or a slash at all:
// the probes are answered without a token.
func noPaths(t *testing.T, body string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if strings.Contains(body, p) {
			t.Errorf("%s holds the path %s", body, p)
		}
	}
	if strings.Contains(body, "/") {
		t.Errorf("%s holds a slash: a path may leak", body)
	}
}

// /readyz is 503 while an eager upstream server connects (this one never
// answers initialize, and may take an hour to), /healthz is 200 all the
// while, both without the token; /mcp still needs it, and without
// --pprof there are no profiles.
func TestReadyzWaitsForAConnectingUpstream(t *testing.T) {
	t.Parallel()
	root, cfgDir := project(t), t.TempDir()
	cfg := mcpConfig(t, map[string]any{
		"stuck": map[string]any{"command": testUpstream, "args": []string{"-mode", "noinit"}},
	})
	_, base := startHTTP(t, root, "--cfg", cfgDir, "--token", "s3cret", "--mcp-config", cfg, "--upstream-connect-timeout", "1h")

	code, body := fetch(t, "GET", base+"/readyz", "")
	var rd readiness
	if err := json.Unmarshal([]byte(body), &rd); err != nil {
		t.Fatalf("/readyz = %d %q: %v", code, body, err)
	}
	if code != http.StatusServiceUnavailable || rd.Ready || rd.Status != "starting" {
		t.Errorf("/readyz while stuck connects = %d %s, want 503 starting", code, body)
	}
	if len(rd.Upstreams) != 1 || rd.Upstreams[0].ID != "stuck" || rd.Upstreams[0].State == "ready" {
		t.Errorf("upstreams = %+v, want stuck not ready", rd.Upstreams)
	}
	noPaths(t, body, root, cfgDir, cfg, testUpstream, binary)
	if code, body := fetch(t, "GET", base+"/healthz", ""); code != http.StatusOK || strings.TrimSpace(body) != `{"status":"ok"}` {
		t.Errorf("/healthz = %d %q", code, body)
	}
	for _, tc := range []struct {
		method, path, token string
		want                int
	}{
		{"POST", "/mcp", "", http.StatusUnauthorized},
		{"POST", "/readyz", "", http.StatusMethodNotAllowed},
		{"HEAD", "/healthz", "", http.StatusOK},
		{"GET", "/debug/pprof/", "s3cret", http.StatusNotFound},
		{"GET", "/debug/pprof/goroutine", "s3cret", http.StatusNotFound},
	} {
		if code, body := fetch(t, tc.method, base+tc.path, tc.token); code != tc.want {
			t.Errorf("%s %s = %d %q, want %d", tc.method, tc.path, code, body, tc.want)
		}
	}
}

// Once every plugin is up /readyz is 200, with each plugin's state and
// restarts and nothing of the paths; --pprof serves the profiles behind
// the token.
func TestReadyzOnceStartedAndPprof(t *testing.T) {
	t.Parallel()
	root, cfgDir, plugins := project(t), t.TempDir(), pluginDir(t, "echo", "exits")
	_, base := startHTTP(t, root, "--cfg", cfgDir, "--token", "s3cret", "--plugins", plugins, "--pprof")

	var code int
	var body string
	if !proctest.Await(func() bool { code, body = fetch(t, "GET", base+"/readyz", ""); return code == http.StatusOK }) {
		t.Fatalf("/readyz never 200: %d %s", code, body)
	}
	var rd readiness
	if err := json.Unmarshal([]byte(body), &rd); err != nil || !rd.Ready || rd.Status != "ready" {
		t.Fatalf("/readyz = %s (%v), want ready", body, err)
	}
	states := map[string]string{}
	for _, p := range rd.Plugins {
		states[p.Name] = p.State
		if p.Restarts == nil {
			t.Errorf("plugin %s has no restarts count", p.Name)
		}
	}
	// echo was launched to describe itself; a bundled group's process
	// starts at its first call.
	want := map[string]string{"echo": "running", "exits": "skipped"}
	for _, name := range host.BundledNames() {
		want[name] = "idle"
	}
	for name, state := range want {
		if states[name] != state {
			t.Errorf("plugin %s is %q, want %q (body %s)", name, states[name], state, body)
		}
	}
	noPaths(t, body, root, cfgDir, plugins, testPlugin, binary)

	for _, tc := range []struct {
		path, token string
		want        int
		has         string
	}{
		{"/debug/pprof/", "", http.StatusUnauthorized, ""},
		{"/debug/pprof/goroutine?debug=1", "nope", http.StatusUnauthorized, ""},
		{"/debug/pprof/goroutine?debug=1", "s3cret", http.StatusOK, "goroutine profile"},
		{"/healthz", "", http.StatusOK, `{"status":"ok"}`},
	} {
		if code, body := fetch(t, "GET", base+tc.path, tc.token); code != tc.want || !strings.Contains(body, tc.has) {
			t.Errorf("GET %s = %d %.200q, want %d with %q", tc.path, code, body, tc.want, tc.has)
		}
	}
}
