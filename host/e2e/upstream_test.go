package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// upstreamServer is an mcpServers entry running internal/testupstream in
// mode over stdio, with extra fields merged in.
func upstreamServer(mode string, extra map[string]any) map[string]any {
	s := map[string]any{
		"command": testUpstream, "args": []string{"-mode", mode},
		"env":         map[string]string{"GORACE": "atexit_sleep_ms=0"},
		"description": "test upstream in mode " + mode,
	}
	for k, v := range extra {
		s[k] = v
	}
	return s
}

// mcpConfig writes an mcpServers file and returns its path.
func mcpConfig(t *testing.T, servers map[string]any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// status reads ramabana://status.
func status(t *testing.T, cs *mcp.ClientSession) map[string]any {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "ramabana://status"})
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// upstreamStatus is the status entry of one upstream server.
func upstreamStatus(t *testing.T, cs *mcp.ClientSession, id string) map[string]any {
	t.Helper()
	st := status(t, cs)
	list, _ := st["upstreams"].([]any)
	for _, u := range list {
		if m := u.(map[string]any); m["id"] == id {
			return m
		}
	}
	t.Fatalf("no upstream %q in status: %v", id, st["upstreams"])
	return nil
}

// Eager upstream servers' tools are in the client's first tools/list as
// <id>__<tool>, each page in order, annotations and descriptions as the
// server gave them, readonly applied; calls, progress, cancellation,
// failures and reconnects pass through; mcp_connect adds a lazy server's
// tools to the session; status shows every server.
func TestUpstreamServersForAClient(t *testing.T) {
	t.Parallel()
	cancelFile := filepath.Join(t.TempDir(), "cancelled")
	cfg := mcpConfig(t, map[string]any{
		"up":     upstreamServer("ok", nil),
		"ro":     upstreamServer("ok", map[string]any{"readonly": true, "env": map[string]string{"TESTUPSTREAM_CANCEL_FILE": cancelFile, "GORACE": "atexit_sleep_ms=0"}}),
		"pages":  upstreamServer("emptycursor", map[string]any{"readonly": true, "deny": []string{"crash", "slow"}}),
		"loops":  upstreamServer("repeat", nil),
		"chg":    upstreamServer("changing", map[string]any{"readonly": true}),
		"later":  upstreamServer("ok", map[string]any{"lazy": true}),
		"BAD":    upstreamServer("ok", nil),
		"files":  upstreamServer("ok", map[string]any{"readonly": true}),
		"skipme": upstreamServer("ok", map[string]any{"readonly": true}),
	})
	changed := make(chan struct{}, 10)
	s := startStdioEnvOpts(t, nil, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	}, project(t), "--mcp-config", cfg, "--upstream-wait", "2m", "--groups", "-skipme")
	cs := s.session

	got := tools(t, cs)
	if want := "MCP config " + cfg + ": mcpServers.BAD: id must match"; !s.logged(want) {
		t.Errorf("no start-up message %q for the bad entry; stderr:\n%s", want, s.stderr)
	}
	// Not readonly: only the tool that says readOnlyHint is a read tool.
	if _, ok := got["up__echo"]; !ok {
		t.Errorf("no up__echo in %v", keys(got))
	}
	for _, name := range []string{"up__write_note", "up__add", "up__undescribed"} {
		if _, ok := got[name]; ok {
			t.Errorf("%s is a write tool, served without --write", name)
		}
	}
	echo := got["up__echo"]
	if a := echo.Annotations; a == nil || !a.ReadOnlyHint || a.OpenWorldHint == nil || *a.OpenWorldHint || a.DestructiveHint != nil {
		t.Errorf("up__echo annotations = %+v, want the server's (readOnly, not open-world, destructive absent)", echo.Annotations)
	}
	if echo.Description == "" || echo.Title != "Echo" {
		t.Errorf("up__echo = %+v", echo)
	}
	// readonly: every tool, each page in order.
	var pages []string
	for name := range got {
		if strings.HasPrefix(name, "pages__") {
			pages = append(pages, name)
		}
	}
	slices.Sort(pages)
	wantPages := []string{"pages__a_tool_with_a_rather_long_name_that_needs_shorte_", "pages__add", "pages__echo", "pages__fail", "pages__pid", "pages__undescribed", "pages__write_note"}
	if len(pages) != len(wantPages) || !strings.HasPrefix(pages[0], wantPages[0]) || !slices.Equal(pages[1:], wantPages[1:]) {
		t.Errorf("pages tools = %v, want %v (every page across the \"\" cursor, deny applied)", pages, wantPages)
	}
	for name, tool := range got {
		if len(name) > 64 {
			t.Errorf("tool name %q is longer than 64", name)
		}
		if strings.HasPrefix(name, "ro__") && (tool.Annotations == nil || !tool.Annotations.ReadOnlyHint) {
			t.Errorf("%s of a readonly server lacks readOnlyHint", name)
		}
	}
	if u := got["ro__undescribed"]; u == nil || u.Description != "" {
		t.Errorf("ro__undescribed = %+v, want an empty description", u)
	}
	if _, ok := got["loops__first"]; ok {
		t.Error("a server repeating its cursor was served")
	}
	loops := upstreamStatus(t, cs, "loops")
	if loops["state"] != "failed" || !strings.Contains(fmt.Sprint(loops["error"]), "RepeatedCursor") {
		t.Errorf("loops status = %v", loops)
	}
	ro := upstreamStatus(t, cs, "ro")
	if ro["state"] != "ready" || ro["transport"] != "stdio" || ro["instructions"] != "test upstream: ok" {
		t.Errorf("ro status = %v", ro)
	}
	renamed, _ := ro["renamed"].(map[string]any)
	if len(renamed) != 1 {
		t.Errorf("ro renamed = %v, want the long tool's mapping", ro["renamed"])
	}
	for short, long := range renamed {
		if _, ok := got[short]; !ok || long != "a_tool_with_a_rather_long_name_that_needs_shortening_for_clients" {
			t.Errorf("renamed %s → %v", short, long)
		}
	}
	if files := upstreamStatus(t, cs, "files"); files["state"] != "ready" {
		t.Errorf("files status = %v: a server whose id is a built-in group's name is served like any", files)
	}
	if _, ok := got["files__echo"]; !ok {
		t.Error("a server with a built-in group's id was not served")
	}
	if st := upstreamStatus(t, cs, "skipme"); st["state"] != "idle" || !strings.Contains(fmt.Sprint(st["error"]), "opted out") {
		t.Errorf("skipme status = %v", st)
	}
	if _, ok := got["skipme__echo"]; ok {
		t.Error("an opted-out server was served")
	}
	if later := upstreamStatus(t, cs, "later"); later["state"] != "lazy" || later["lazy"] != true {
		t.Errorf("later status = %v", later)
	}

	// Calls: text, structured content.
	if res, err := call(t, cs, "ro__echo", map[string]any{"text": "hi"}); err != nil || res.IsError || text(res) != "hi" {
		t.Errorf("ro__echo = %v, %v", res, err)
	}
	if res, err := call(t, cs, "ro__add", map[string]any{"a": 2, "b": 3}); err != nil || res.IsError || !strings.Contains(fmt.Sprint(res.StructuredContent), "5") {
		t.Errorf("ro__add = %+v, %v", res, err)
	}
	if res, err := call(t, cs, "ro__fail", map[string]any{}); err != nil || !res.IsError || text(res) != "it failed" {
		t.Errorf("ro__fail = %+v, %v", res, err)
	}

	// Progress and cancellation, both ways.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "ro__slow", Arguments: map[string]any{"seconds": 600}}
		params.SetProgressToken("up-1")
		_, err := cs.CallTool(ctx, params)
		done <- err
	}()
	select {
	case p := <-s.progress:
		if p.ProgressToken != "up-1" || !strings.HasPrefix(p.Message, "tick ") {
			t.Errorf("progress = %+v", p)
		}
	case <-time.After(proctest.Patience):
		t.Fatal("no progress from the upstream server")
	}
	cancel()
	<-done
	if !proctest.Await(func() bool { _, err := os.Stat(cancelFile); return err == nil }) {
		t.Error("the upstream server never saw the cancellation")
	}

	// A server that dies mid-call: a tool error, an upstream_error event,
	// and the next call reconnects.
	if res, err := call(t, cs, "ro__crash", map[string]any{}); err != nil || !res.IsError {
		t.Errorf("ro__crash = %+v, %v; want a tool error", res, err)
	}
	act, _ := call(t, cs, "activity", map[string]any{"event": "upstream_error"})
	if !strings.Contains(text(act), "upstream_error ro__crash(ro) failed") {
		t.Errorf("no upstream_error event:\n%s", text(act))
	}
	if res, err := call(t, cs, "ro__echo", map[string]any{"text": "back"}); err != nil || text(res) != "back" {
		t.Errorf("after the crash ro__echo = %v, %v: no reconnect", res, err)
	}
	reg, _ := call(t, cs, "activity", map[string]any{"event": "upstream_register"})
	if !strings.Contains(text(reg), "upstream_register(ro) | stdio, ") || !strings.Contains(text(reg), "instructions: test upstream: ok") {
		t.Errorf("no upstream_register event for ro:\n%s", text(reg))
	}

	// The upstream's list_changed re-lists it; the client hears of it.
	for len(changed) > 0 {
		<-changed
	}
	if res, err := call(t, cs, "chg__grow", map[string]any{}); err != nil || text(res) != "added grown_1" {
		t.Fatalf("chg__grow = %v, %v", res, err)
	}
	if !proctest.Await(func() bool { _, ok := tools(t, cs)["chg__grown_1"]; return ok }) {
		t.Error("chg__grown_1 never appeared")
	}
	select {
	case <-changed:
	case <-time.After(proctest.Patience):
		t.Error("no tools/list_changed after the upstream's list changed")
	}

	// mcp_connect: the messages docs/upstream.md gives, tools for this
	// session.
	mc := got["mcp_connect"]
	if mc == nil || !strings.Contains(mc.Description, "<available_mcps>\n- later: test upstream in mode ok\n</available_mcps>") {
		t.Fatalf("mcp_connect = %+v", mc)
	}
	if res, _ := call(t, cs, "mcp_connect", map[string]any{"id": "nope"}); !res.IsError || text(res) != `Error: unknown MCP server id "nope". Available: later.` {
		t.Errorf("unknown id: %q", text(res))
	}
	if res, _ := call(t, cs, "mcp_connect", map[string]any{"id": "later"}); res.IsError || text(res) != "Connected to MCP server 'later'. Added 1 tool to your toolset." {
		t.Errorf("connect: %q", text(res))
	}
	if res, _ := call(t, cs, "mcp_connect", map[string]any{"id": "later"}); !res.IsError || text(res) != "Error: server 'later' is already connected; its tools are in your toolset, call them directly." {
		t.Errorf("again: %q", text(res))
	}
	if res, err := call(t, cs, "later__echo", map[string]any{"text": "lazy"}); err != nil || text(res) != "lazy" {
		t.Errorf("later__echo = %v, %v", res, err)
	}
	if _, ok := tools(t, cs)["later__echo"]; !ok {
		t.Error("later__echo is not listed after mcp_connect")
	}
}

// startHTTPUpstream runs internal/testupstream over streamable HTTP and
// returns its URL; env is added to its environment.
func startHTTPUpstream(t *testing.T, mode string, env ...string) string {
	t.Helper()
	return startHTTPUpstreamArgs(t, []string{"-mode", mode}, env...)
}

// startHTTPUpstreamArgs is startHTTPUpstream with testupstream's flags.
func startHTTPUpstreamArgs(t *testing.T, args []string, env ...string) string {
	t.Helper()
	cmd := exec.Command(testUpstream, append(args, "-http", "127.0.0.1:0")...)
	cmd.Env = append(append(os.Environ(), "GORACE=atexit_sleep_ms=0"), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	m := regexp.MustCompile(`^listening (http://\S+)\n$`).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("testupstream -http printed %q, %v", line, err)
	}
	return m[1]
}

// Over HTTP each session owns its mcp_connect activations; an HTTP
// upstream's tools pass through.
func TestUpstreamServersOverHTTP(t *testing.T) {
	t.Parallel()
	cancelFile := filepath.Join(t.TempDir(), "cancelled")
	url := startHTTPUpstream(t, "ok", "TESTUPSTREAM_CANCEL_FILE="+cancelFile)
	// A remote server that wants credentials it was not given.
	locked := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	}))
	t.Cleanup(locked.Close)
	cfg := mcpConfig(t, map[string]any{
		"remote": map[string]any{"url": url, "readonly": true},
		// Each session starts its own process: the first lists grow too
		// (mode changing), the next do not (mode ok).
		"later": upstreamServer("ok", map[string]any{"lazy": true, "readonly": true,
			"command": "sh", "args": []string{"-c", `if [ -e "$0" ]; then exec "$1" -mode ok; fi; : > "$0"; exec "$1" -mode changing`,
				filepath.Join(t.TempDir(), "started"), testUpstream}}),
		"locked": map[string]any{"url": locked.URL + "/mcp"},
	})
	_, base := startHTTP(t, project(t), "--mcp-config", cfg, "--upstream-wait", "2m", "--pii", "redact")
	progress := make(chan *mcp.ProgressNotificationParams, 100)
	a := connectWith(t, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case progress <- req.Params:
			default:
			}
		},
	})
	b := connect(t, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"})
	if res, err := call(t, a, "remote__echo", map[string]any{"text": "over http"}); err != nil || text(res) != "over http" {
		t.Errorf("remote__echo = %v, %v", res, err)
	}
	// Everything an upstream answers goes through --pii.
	if res, err := call(t, a, "remote__echo", map[string]any{"text": "mail ana.lopez@fastmail.fm"}); err != nil || text(res) != "mail [REDACTED:email]" {
		t.Errorf("remote__echo with an address = %v, %v", text(res), err)
	}
	if st := upstreamStatus(t, a, "remote"); st["transport"] != "streamable-http" || st["state"] != "ready" {
		t.Errorf("remote status = %v", st)
	}
	if st := upstreamStatus(t, a, "locked"); st["state"] != "failed" || st["needs_auth"] != true || !strings.Contains(fmt.Sprint(st["error"]), "needs authorization (HTTP 401)") {
		t.Errorf("locked status = %v, want failed, needs_auth and why", st)
	}
	if d := tools(t, a)["search_capabilities"].Description; !strings.Contains(d, "locked (needs authorization)") {
		t.Errorf("search_capabilities does not say locked needs authorization: %q", d)
	}
	// Progress and cancellation through both HTTP hops.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "remote__slow", Arguments: map[string]any{"seconds": 600}}
		params.SetProgressToken("http-1")
		_, err := a.CallTool(ctx, params)
		done <- err
	}()
	select {
	case p := <-progress:
		if p.ProgressToken != "http-1" || !strings.HasPrefix(p.Message, "tick ") {
			t.Errorf("progress = %+v", p)
		}
	case <-time.After(proctest.Patience):
		t.Fatal("no progress from the HTTP upstream")
	}
	cancel()
	<-done
	if !proctest.Await(func() bool { _, err := os.Stat(cancelFile); return err == nil }) {
		t.Error("the HTTP upstream never saw the cancellation")
	}
	if slices.Contains(searchNames(t, a, "echo"), "later__echo") {
		t.Error("search finds later__echo before mcp_connect")
	}
	if res, _ := call(t, a, "mcp_connect", map[string]any{"id": "later"}); res.IsError {
		t.Fatalf("connect: %q", text(res))
	}
	// What a session's mcp_connect added, its searches find; others' not.
	if got := searchNames(t, a, "echo"); !slices.Contains(got, "later__echo") {
		t.Errorf("session a's search for echo = %v, want later__echo among them", got)
	}
	if got := searchNames(t, b, "echo"); slices.Contains(got, "later__echo") {
		t.Errorf("session b's search found session a's later__echo: %v", got)
	}
	if _, ok := tools(t, a)["later__echo"]; !ok {
		t.Error("session a lacks later__echo after its mcp_connect")
	}
	if _, ok := tools(t, b)["later__echo"]; ok {
		t.Error("session b got later__echo from session a's mcp_connect")
	}
	if res, err := call(t, b, "later__echo", map[string]any{"text": "x"}); err == nil && !res.IsError {
		t.Error("session b could call session a's upstream tool")
	}
	if res, _ := call(t, b, "mcp_connect", map[string]any{"id": "later"}); res.IsError {
		t.Errorf("session b's own connect: %q", text(res))
	}
	// b's server lists no grow: a still finds its own.
	if got := searchNames(t, a, "grow"); !slices.Contains(got, "later__grow") {
		t.Errorf("after session b connected, session a's search for grow = %v, want later__grow", got)
	}
	if got := searchNames(t, b, "grow"); slices.Contains(got, "later__grow") {
		t.Errorf("session b's search found a tool only session a's server has: %v", got)
	}
	if got := searchNames(t, b, "echo"); !slices.Contains(got, "later__echo") {
		t.Errorf("session b's search for echo after its connect = %v", got)
	}
}

// An upstream server that never answers initialize, and a plugin that
// never hand-shakes, delay neither initialize nor the first tools/list
// past --upstream-wait; killing the host mid-connect takes the upstream
// server with it.
func TestStuckUpstreamAndPluginDoNotHoldTheClient(t *testing.T) {
	t.Parallel()
	marker := "stuck-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	cfg := mcpConfig(t, map[string]any{
		"stuck": map[string]any{"command": testUpstream, "args": []string{"-mode", "noinit", "-instructions", marker}},
	})
	// The timeouts are far beyond what the test waits for the list.
	s := startStdio(t, project(t), "--mcp-config", cfg, "--upstream-wait", "1s", "--upstream-connect-timeout", "1h",
		"--plugins", pluginDir(t, "silent"), "--start-timeout", "1h")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var names []string
	for tool, err := range s.session.Tools(ctx, nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		names = append(names, tool.Name)
	}
	// The bundled groups come as soon as they are described, announced
	// with list_changed if the list was answered before.
	if !proctest.Await(func() bool { _, ok := tools(t, s.session)["view_file"]; return ok }) {
		t.Errorf("tools = %v, want the bundled groups' tools", names)
	}
	if st := upstreamStatus(t, s.session, "stuck"); st["state"] != "connecting" {
		t.Errorf("stuck status = %v", st)
	}
	var pids []int
	if !proctest.Await(func() bool { pids = findCmdline(marker); return len(pids) == 1 }) {
		t.Fatalf("the stuck upstream is not running: %v", pids)
	}
	upstream := proctest.Find(pids[0]) // its start time too: the pid may be reused once it ends
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = s.cmd.Wait()
	if !proctest.Await(func() bool { return !upstream.Alive() }) {
		_ = proctest.Kill(upstream.Pid)
		t.Error("the upstream server outlived the host killed mid-connect")
	}
}

// @modelcontextprotocol/server-everything, the reference server, over
// stdio (installed by .ci/run).
func TestEverythingServerThroughRamabana(t *testing.T) {
	bin, err := exec.LookPath("mcp-server-everything")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("mcp-server-everything is not installed; .ci/run installs it")
		}
		t.Skip("@modelcontextprotocol/server-everything is not installed (npm install -g @modelcontextprotocol/server-everything)")
	}
	t.Parallel()
	cfg := mcpConfig(t, map[string]any{"everything": map[string]any{"command": bin, "args": []string{"stdio"}, "readonly": true}})
	s := startStdio(t, project(t), "--mcp-config", cfg, "--upstream-wait", "2m")
	got := tools(t, s.session)
	if _, ok := got["everything__echo"]; !ok {
		t.Fatalf("no everything__echo in %v", keys(got))
	}
	if res, err := call(t, s.session, "everything__echo", map[string]any{"message": "ping"}); err != nil || res.IsError || !strings.Contains(text(res), "ping") {
		t.Errorf("everything__echo = %v, %v", res, err)
	}
}

// TestServersNamedAsBuiltInGroupsAreServed: the reference servers are
// often configured as "git" or "memory". Such a server is served as
// <id>__<tool> beside the bundled group of the same name; in --groups a
// plain "git" names the bundled group and "mcp:git" the server, and a
// server's plain id names it when no built-in group has it.
func TestServersNamedAsBuiltInGroupsAreServed(t *testing.T) {
	t.Parallel()
	cfg := mcpConfig(t, map[string]any{
		"git":    upstreamServer("ok", map[string]any{"readonly": true}),
		"search": upstreamServer("ok", map[string]any{"readonly": true}),
		"other":  upstreamServer("ok", map[string]any{"readonly": true}),
	})
	for _, tc := range []struct {
		groups      string
		want, unwnt []string
		optedOut    []string // servers the status says are opted out
	}{
		{"", []string{"git_status", "git__echo", "search__echo", "other__echo"}, nil, nil},
		{"-git", []string{"git__echo", "search__echo", "other__echo"}, []string{"git_status"}, nil},
		{"-mcp:git", []string{"git_status", "search__echo", "other__echo"}, []string{"git__echo"}, []string{"git"}},
		{"-mcp:search,-other", []string{"git_status", "git__echo"}, []string{"search__echo", "other__echo"}, []string{"search", "other"}},
	} {
		// No comma in a subtest's name: its TempDir would hold it, and
		// --root splits at commas.
		t.Run(strings.NewReplacer(",", " ", ":", "_").Replace(tc.groups), func(t *testing.T) {
			t.Parallel()
			args := []string{"--mcp-config", cfg}
			if tc.groups != "" {
				args = append(args, "--groups", tc.groups)
			}
			s := startStdio(t, project(t), args...)
			got := tools(t, s.session)
			for _, name := range tc.want {
				if _, ok := got[name]; !ok {
					t.Errorf("--groups %q: %s not listed; stderr:\n%s", tc.groups, name, s.stderr)
				}
			}
			for _, name := range tc.unwnt {
				if _, ok := got[name]; ok {
					t.Errorf("--groups %q: %s listed", tc.groups, name)
				}
			}
			for _, id := range tc.optedOut {
				if st := upstreamStatus(t, s.session, id); !strings.Contains(fmt.Sprint(st["error"]), "opted out") {
					t.Errorf("--groups %q: %s status = %v, want opted out", tc.groups, id, st)
				}
			}
			if _, ok := got["git__echo"]; ok {
				if res, err := call(t, s.session, "git__echo", map[string]any{"text": "hi"}); err != nil || res.IsError || text(res) != "hi" {
					t.Errorf("git__echo = %v, %v", res, err)
				}
			}
		})
	}
	if code, _, stderr := runBinary(t, "--root", project(t), "--cfg", t.TempDir(), "--mcp-config", cfg, "--groups", "-mcp:nosuch"); code == 0 || !strings.Contains(stderr, `no group "mcp:nosuch"`) {
		t.Errorf("--groups -mcp:nosuch: exit %d, stderr:\n%s", code, stderr)
	}
}
