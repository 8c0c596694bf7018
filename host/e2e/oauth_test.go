package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// TestOAuthLoginThenServe: a remote server behind an OAuth 2.1
// authorization server (started by the test: discovery, dynamic client
// registration, PKCE, refresh tokens) is unusable until
// `ramabana-mcp upstream login ID`, which prints the authorization URL and
// waits for the redirect on loopback (the test is the browser); the token
// is kept under CFG with mode 0600, and the server then connects with it,
// refreshing it as it expires and keeping the new one.
func TestOAuthLoginThenServe(t *testing.T) {
	t.Parallel()
	// Tokens that live 5 s are always within the oauth2 package's 10 s of
	// expiry: every use refreshes, whatever the machine's speed.
	url := startHTTPUpstreamArgs(t, []string{"-mode", "oauth", "-token-ttl", "5s"})
	cfg := t.TempDir()
	mcpFile := mcpConfig(t, map[string]any{"remote": map[string]any{"url": url, "readonly": true}})

	// Before login: refused for want of authorization, saying what to run.
	before := startStdio(t, project(t), "--cfg", cfg, "--mcp-config", mcpFile)
	st := upstreamStatus(t, before.session, "remote")
	if st["needs_auth"] != true || !strings.Contains(st["error"].(string), "ramabana-mcp upstream login remote") {
		t.Fatalf("before login, status = %v", st)
	}
	before.stop(t)

	oauthLogin(t, "remote", "--cfg", cfg, "--mcp-config", mcpFile)
	tokenFile := filepath.Join(cfg, "tokens", "remote.json")
	fi, err := os.Stat(tokenFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, %v; want mode 0600", fi, err)
	}
	first := accessToken(t, tokenFile)

	// After: served, with the kept token, refreshed as it expires.
	s := startStdio(t, project(t), "--cfg", cfg, "--mcp-config", mcpFile)
	res, err := call(t, s.session, "remote__echo", map[string]any{"text": "hi"})
	if err != nil || text(res) != "hi" {
		t.Fatalf("remote__echo = %v, %v; status %v", res, err, upstreamStatus(t, s.session, "remote"))
	}
	stats, err := call(t, s.session, "remote__auth_stats", map[string]any{})
	if err != nil || !strings.Contains(text(stats), "codes=1 ") || strings.Contains(text(stats), "refreshes=0") {
		t.Errorf("auth_stats = %q, %v; want one code exchanged and the token refreshed since", text(stats), err)
	}
	if !proctest.Await(func() bool { return accessToken(t, tokenFile) != first }) {
		t.Error("the refreshed token was not kept")
	}
	if fi, err := os.Stat(tokenFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file after refresh: %v, %v; want mode 0600", fi, err)
	}
	if code, stdout, _ := runBinary(t, "upstream", "logout", "remote", "--cfg", cfg, "--mcp-config", mcpFile); code != 0 || !strings.Contains(stdout, "forgot") {
		t.Errorf("logout: exit %d, %q", code, stdout)
	}
	if _, err := os.Stat(tokenFile); !os.IsNotExist(err) {
		t.Errorf("the token is still kept after logout: %v", err)
	}
}

// accessToken is the access token kept in a tokens file.
func accessToken(t *testing.T, file string) string {
	b, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	var k struct {
		Token struct {
			AccessToken string `json:"access_token"`
		} `json:"token"`
	}
	if err := json.Unmarshal(b, &k); err != nil {
		t.Fatal(err)
	}
	return k.Token.AccessToken
}

// oauthLogin runs `ramabana-mcp upstream login ID ARGS...` as a user at a
// browser would: it reads the authorization URL the command prints, GETs
// it (the test's authorization server approves and redirects to the
// command's loopback listener), and waits for the command to say it
// logged in.
func oauthLogin(t *testing.T, id string, args ...string) {
	t.Helper()
	login := exec.Command(binary, append([]string{"upstream", "login", id}, args...)...)
	stdout, err := login.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	login.Stderr = &stderr
	if err := login.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = login.Process.Kill() })
	out := bufio.NewReader(stdout)
	var printed strings.Builder
	authURL := ""
	for authURL == "" {
		line, err := out.ReadString('\n')
		printed.WriteString(line)
		if err != nil {
			t.Fatalf("login printed no URL: %v\n%s\nstderr:\n%s", err, printed.String(), stderr.String())
		}
		if m := regexp.MustCompile(`^\s+(http://\S+/authorize\?\S+)$`).FindStringSubmatch(strings.TrimRight(line, "\n")); m != nil {
			authURL = m[1]
		}
	}
	resp, err := http.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "authorized") {
		t.Fatalf("the redirect answered %d %q", resp.StatusCode, body)
	}
	rest, _ := io.ReadAll(out)
	if err := login.Wait(); err != nil || !strings.Contains(string(rest), "logged in to MCP server \""+id+"\"") {
		t.Fatalf("login: %v\n%s%s\nstderr:\n%s", err, printed.String(), rest, stderr.String())
	}
}

// TestOAuthWithAClientRegisteredBeforehand: an authorization server that
// offers no dynamic registration takes the client the user names with
// --client-id; without it, login says why it cannot register.
func TestOAuthWithAClientRegisteredBeforehand(t *testing.T) {
	t.Parallel()
	url := startHTTPUpstreamArgs(t, []string{"-mode", "oauth", "-client", "pub-1"})
	cfg := t.TempDir()
	mcpFile := mcpConfig(t, map[string]any{"remote": map[string]any{"url": url, "readonly": true}})
	if code, stdout, stderr := runBinary(t, "upstream", "login", "remote", "--cfg", cfg, "--mcp-config", mcpFile, "--login-timeout", "1m"); code == 0 {
		t.Fatalf("login without a client id against a server without registration succeeded:\n%s", stdout)
	} else if !strings.Contains(strings.ToLower(stderr), "regist") {
		t.Errorf("login without a client id: exit %d, stderr %q; want it to say registration is not offered", code, stderr)
	}
	oauthLogin(t, "remote", "--cfg", cfg, "--mcp-config", mcpFile, "--client-id", "pub-1")
	s := startStdio(t, project(t), "--cfg", cfg, "--mcp-config", mcpFile)
	if res, err := call(t, s.session, "remote__echo", map[string]any{"text": "hi"}); err != nil || text(res) != "hi" {
		t.Fatalf("remote__echo = %v, %v; status %v", res, err, upstreamStatus(t, s.session, "remote"))
	}
}
