package image

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	stdimage "image"
	"image/color"
	"image/jpeg"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// testKey is the API key the tests' plugin has; goodKey is the one the
// fake provider accepts in its "auth" mode.
const (
	testKey = "sk-test-secret-1234567890"
	goodKey = "sk-the-right-one"
)

// testMaxImage is the image cap of the tests' plugin, small so that an
// oversized image costs little.
const testMaxImage = 64 << 10

// encoded returns a w by h image in PNG or JPEG.
func encoded(t testing.TB, kind string, w, h int) []byte {
	t.Helper()
	img := stdimage.NewRGBA(stdimage.Rect(0, 0, w, h))
	for x := range w {
		img.Set(x, 0, color.RGBA{R: 200, A: 255})
	}
	var b bytes.Buffer
	var err error
	if kind == "png" {
		err = png.Encode(&b, img)
	} else {
		err = jpeg.Encode(&b, img, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// webp is the header of a 300x200 extended WebP: all the tool reads.
var webp = []byte("RIFF\x16\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x00\x00\x00\x00\x2b\x01\x00\xc7\x00\x00")

// request is one generation request the fake provider got.
type request struct {
	Mode           string
	Model          string `json:"model"`
	Prompt         string `json:"prompt"`
	N              int    `json:"n"`
	Size           string `json:"size"`
	ResponseFormat string `json:"response_format"`
	Auth           string
}

// provider is a fake OpenAI-compatible images API on 127.0.0.1. Its mode
// is the first path segment of the URL it is configured with
// ("/v1" is "ok"); images it hands out as URLs are under /img/.
type fakeProvider struct {
	*httptest.Server
	png, jpeg []byte

	mu        sync.Mutex
	requests  []request
	imageAuth []string // Authorization of each image download
	// release, when set, is what a "slow-ok" answer waits for.
	release chan struct{}
}

func newProvider(t *testing.T) *fakeProvider {
	t.Helper()
	f := &fakeProvider{png: encoded(t, "png", 3, 2), jpeg: encoded(t, "jpeg", 4, 4), release: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /{mode}/images/generations", f.generate)
	mux.HandleFunc("GET /img/{name}", f.image)
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

func (f *fakeProvider) requestsSeen() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]request(nil), f.requests...)
}

func (f *fakeProvider) generate(w http.ResponseWriter, r *http.Request) {
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	req.Mode, req.Auth = r.PathValue("mode"), r.Header.Get("Authorization")
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.mu.Unlock()
	b64 := func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
	answer := func(items ...map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"created": 1, "data": items})
	}
	switch req.Mode {
	case "v1", "ok":
		answer(map[string]any{"b64_json": b64(f.png)})
	case "revised":
		answer(map[string]any{"b64_json": b64(f.png), "revised_prompt": "A red line on black, " + testKey})
	case "jpeg":
		answer(map[string]any{"b64_json": b64(f.jpeg)})
	case "webp":
		answer(map[string]any{"b64_json": b64(webp)})
	case "url":
		answer(map[string]any{"url": f.URL + "/img/jpeg"})
	case "data-url":
		answer(map[string]any{"url": "data:image/png;base64," + b64(f.png)})
	case "no-rf":
		if req.ResponseFormat != "" {
			http.Error(w, `{"error": {"message": "Unknown parameter: 'response_format'.", "type": "invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		answer(map[string]any{"b64_json": b64(f.png)})
	case "fail":
		http.Error(w, `{"error": {"message": "the model exploded"}}`, http.StatusInternalServerError)
	case "auth":
		if req.Auth != "Bearer "+goodKey {
			msg := fmt.Sprintf(`{"error": {"message": "Incorrect API key provided: %s. You can find your API key at https://platform.example/keys."}}`, strings.TrimPrefix(req.Auth, "Bearer "))
			http.Error(w, msg, http.StatusUnauthorized)
			return
		}
		answer(map[string]any{"b64_json": b64(f.png)})
	case "policy":
		http.Error(w, `{"error": {"message": "Your request was rejected by the safety system."}}`, http.StatusBadRequest)
	case "bad-b64":
		answer(map[string]any{"b64_json": "@@@ not base64 @@@"})
	case "gif":
		answer(map[string]any{"b64_json": b64([]byte("GIF89a\x01\x00\x01\x00"))})
	case "big":
		answer(map[string]any{"b64_json": b64(append(bytes.Clone(f.png), make([]byte, testMaxImage)...))})
	case "huge-answer":
		answer(map[string]any{"b64_json": b64(f.png), "padding": strings.Repeat("x", 2<<20)})
	case "big-url":
		answer(map[string]any{"url": f.URL + "/img/big"})
	case "missing-url":
		answer(map[string]any{"url": f.URL + "/img/missing"})
	case "ftp-url":
		answer(map[string]any{"url": "ftp://example.org/cat.png"})
	case "empty":
		answer()
	case "neither":
		answer(map[string]any{"revised_prompt": "nothing"})
	case "html":
		w.Header().Set("Content-Type", "text/html")
		_, _ = fmt.Fprint(w, "<html><body>Welcome to nginx!</body></html>")
	case "redirect":
		http.Redirect(w, r, f.URL+"/ok/images/generations?token=abc", http.StatusTemporaryRedirect)
	case "slow":
		<-r.Context().Done()
	case "slow-ok":
		select {
		case <-f.release:
			answer(map[string]any{"b64_json": b64(f.png)})
		case <-r.Context().Done():
		}
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeProvider) image(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.imageAuth = append(f.imageAuth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	switch r.PathValue("name") {
	case "jpeg":
		w.Header().Set("Content-Type", "image/png") // wrong: the bytes decide
		_, _ = w.Write(f.jpeg)
	case "big":
		_, _ = w.Write(append(bytes.Clone(f.png), make([]byte, testMaxImage)...))
	default:
		http.NotFound(w, r)
	}
}

// testServer is a server whose environment holds only env, so that the
// developer's variables cannot change a test.
func testServer(env map[string]string) *server {
	s := newServer()
	s.getenv = func(k string) string { return env[k] }
	s.maxImage = testMaxImage
	return s
}

// writeConfig writes config.json into a new config dir and returns it.
func writeConfig(t *testing.T, content string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// providerConfig is a config dir whose provider is f in mode, with extra
// keys of the "image" entry.
func providerConfig(t *testing.T, f *fakeProvider, mode string, extra string) string {
	t.Helper()
	return writeConfig(t, fmt.Sprintf(`{"web_search": {"provider": "searxng", "url": "http://127.0.0.1:1"}, "image": {"url": %q, "model": "test-model"%s}}`, f.URL+"/"+mode, extra))
}

// served is a served folder, resolved as the host sends it.
func served(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func connect(t *testing.T, s *server, host sdk.Host) sdk.Group {
	t.Helper()
	g, _ := sdktest.Connect(t, newToolbox(s), host)
	return g
}

// imageOf returns a result's image block, or nil.
func imageOf(res *sdk.Result) *sdk.Image {
	for _, c := range res.Content {
		if c.Image != nil {
			return c.Image
		}
	}
	return nil
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	_, d := sdktest.Connect(t, New(), sdk.Host{Web: true})
	if d.Name != "image" || d.Version != Version || len(d.Groups) != 1 {
		t.Fatalf("plugin %s %s with %d groups", d.Name, d.Version, len(d.Groups))
	}
	g := d.Groups[0]
	if g.Name != "image" || g.Mode != sdk.ModeDefault || len(g.Tools) != 1 {
		t.Fatalf("group %q mode %s with %d tools", g.Name, g.Mode, len(g.Tools))
	}
	spec := g.Tools[0]
	if spec.Name != "generate_image" || spec.Kind != sdk.KindAct || spec.EffectiveTask() != sdk.TaskCompletion {
		t.Errorf("tool %s kind %s task %s", spec.Name, spec.Kind, spec.EffectiveTask())
	}
	if diff := cmp.Diff(sdk.Hints{OpenWorld: true, Destructive: true}, spec.Hints()); diff != "" {
		t.Errorf("hints (-want +got):\n%s", diff)
	}
	if n := len(spec.Description); n > 500 || n < 200 {
		t.Errorf("description of %d bytes; want 200 to 500", n)
	}
	var schema struct {
		Required   []string `json:"required"`
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(spec.InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"prompt"}, schema.Required); diff != "" {
		t.Errorf("required (-want +got):\n%s", diff)
	}
	for name, p := range schema.Properties {
		if p.Description == "" || len(p.Description) > 80 {
			t.Errorf("parameter %s: description %q; want a short phrase", name, p.Description)
		}
	}
}

func TestGenerate(t *testing.T) {
	t.Parallel()
	f := newProvider(t)
	png3x2 := f.png
	tests := map[string]struct {
		mode, extra string
		args        map[string]any
		wantMIME    string
		wantData    []byte // nil: any
		wantText    string
		wantErr     string
		notText     string
	}{
		"b64 PNG":                 {mode: "ok", wantMIME: "image/png", wantData: png3x2, wantText: "Generated a 3x2 PNG image"},
		"base URL without a path": {mode: "", wantMIME: "image/png", wantText: "with test-model"},
		"JPEG":                    {mode: "jpeg", wantMIME: "image/jpeg", wantText: "a 4x4 JPEG image"},
		"WebP":                    {mode: "webp", wantMIME: "image/webp", wantData: webp, wantText: "a 300x200 WebP image"},
		"url answer, fetched":     {mode: "url", wantMIME: "image/jpeg", wantText: "JPEG"},
		"data: URL answer":        {mode: "data-url", wantMIME: "image/png", wantData: png3x2},
		"response_format refused": {mode: "no-rf", wantMIME: "image/png"},
		"revised prompt, key hid": {mode: "revised", wantMIME: "image/png", wantText: "Revised prompt: A red line on black, [redacted]", notText: testKey},
		"size from the config":    {mode: "ok", extra: `, "size": "512x512"`, wantMIME: "image/png"},
		"server error":            {mode: "fail", wantErr: "answered HTTP 500 Internal Server Error: the model exploded. The provider failed; try again later"},
		"refused prompt":          {mode: "policy", wantErr: "HTTP 400 Bad Request: Your request was rejected by the safety system."},
		"refused key, redacted":   {mode: "auth", wantErr: "Incorrect API key provided: [redacted]. You can find", notText: testKey},
		"not base64":              {mode: "bad-b64", wantErr: "not valid base64 in b64_json"},
		"a GIF":                   {mode: "gif", wantErr: `not a PNG, JPEG or WebP image (10 bytes starting "GIF89a`},
		"image too large":         {mode: "big", wantErr: "an image larger than 64.0 KiB"},
		"answer too large":        {mode: "huge-answer", wantErr: "the image provider's answer is larger than"},
		"url image too large":     {mode: "big-url", wantErr: "is larger than 64.0 KiB; refused"},
		"url image missing":       {mode: "missing-url", wantErr: "/img/missing failed: HTTP 404 Not Found"},
		"url of another scheme":   {mode: "ftp-url", wantErr: "not an absolute http(s) URL"},
		"no image":                {mode: "empty", wantErr: "answered with no image"},
		"neither b64 nor url":     {mode: "neither", wantErr: "neither b64_json nor url"},
		"not the images API":      {mode: "html", wantErr: "did not answer with the images JSON"},
		"unknown path":            {mode: "nowhere", wantErr: "HTTP 404 Not Found"},
		"redirect, query hidden":  {mode: "redirect", wantErr: "answered with a redirect (HTTP 307 Temporary Redirect) to " + f.URL + "/ok/images/generations?[query hidden]", notText: "token=abc"},
		"empty prompt":            {mode: "ok", args: map[string]any{"prompt": "   "}, wantErr: "prompt is empty"},
		"bad size":                {mode: "ok", args: map[string]any{"prompt": "x", "size": "big"}, wantErr: `size "big" is not WIDTHxHEIGHT (such as 1024x1024) or auto`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := providerConfig(t, f, tc.mode, `, "key_env": "IMG_KEY"`+tc.extra)
			g := connect(t, testServer(map[string]string{"IMG_KEY": testKey}), sdk.Host{Web: true, ConfigDir: cfg})
			args := tc.args
			if args == nil {
				args = map[string]any{"prompt": "a red line, " + name}
			}
			res := sdktest.Call(t, g, "generate_image", args)
			text := res.Text()
			if tc.notText != "" && strings.Contains(text, tc.notText) {
				t.Errorf("the result shows %q: %s", tc.notText, text)
			}
			if !sdktest.Outcome(t, text, res.IsError, tc.wantErr) {
				return
			}
			img := imageOf(res)
			if img == nil {
				t.Fatalf("no image in the result: %q", text)
			}
			if img.MIMEType != tc.wantMIME || (tc.wantData != nil && !bytes.Equal(img.Data, tc.wantData)) {
				t.Errorf("image %s of %d bytes, want %s", img.MIMEType, len(img.Data), tc.wantMIME)
			}
			if !strings.Contains(text, tc.wantText) {
				t.Errorf("text %q, want it to contain %q", text, tc.wantText)
			}
		})
	}
}

// TestRequests checks what the provider is sent: the model, the prompt,
// one image, the size asked for or configured, base64 wanted, the key as
// a bearer token; a provider that refuses response_format is asked again
// without it; an image URL is fetched without the key.
func TestRequests(t *testing.T) {
	t.Parallel()
	f := newProvider(t)
	env := map[string]string{"IMG_KEY": testKey}
	call := func(mode, extra string, args map[string]any) {
		t.Helper()
		g := connect(t, testServer(env), sdk.Host{Web: true, ConfigDir: providerConfig(t, f, mode, extra)})
		if res := sdktest.Call(t, g, "generate_image", args); res.IsError {
			t.Fatalf("%s: %s", mode, res.Text())
		}
	}
	call("ok", `, "key_env": "IMG_KEY"`, map[string]any{"prompt": "a cat", "size": "256x256"})
	call("ok", `, "key_env": "IMG_KEY", "size": "512x512"`, map[string]any{"prompt": "a dog"})
	call("no-rf", "", map[string]any{"prompt": "a bird"})
	call("url", "", map[string]any{"prompt": "a fish"})
	want := []request{
		{Mode: "ok", Model: "test-model", Prompt: "a cat", N: 1, Size: "256x256", ResponseFormat: "b64_json", Auth: "Bearer " + testKey},
		{Mode: "ok", Model: "test-model", Prompt: "a dog", N: 1, Size: "512x512", ResponseFormat: "b64_json", Auth: "Bearer " + testKey},
		// No key_env: RAMABANA_IMAGE_KEY is unset, so no key is sent.
		{Mode: "no-rf", Model: "test-model", Prompt: "a bird", N: 1, Size: "1024x1024", ResponseFormat: "b64_json"},
		{Mode: "no-rf", Model: "test-model", Prompt: "a bird", N: 1, Size: "1024x1024"},
		{Mode: "url", Model: "test-model", Prompt: "a fish", N: 1, Size: "1024x1024", ResponseFormat: "b64_json"},
	}
	if diff := cmp.Diff(want, f.requestsSeen()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}

	env[defaultKeyEnv] = testKey
	call("url", "", map[string]any{"prompt": "a fish"})
	f.mu.Lock()
	defer f.mu.Unlock()
	if diff := cmp.Diff([]string{"", ""}, f.imageAuth); diff != "" {
		t.Errorf("image downloads' Authorization (-want +got):\n%s", diff)
	}
	if got := f.requests[len(f.requests)-1].Auth; got != "Bearer "+testKey {
		t.Errorf("default key variable: Authorization %q", got)
	}
}

func TestKeyHints(t *testing.T) {
	t.Parallel()
	f := newProvider(t)
	tests := map[string]struct {
		extra string
		env   map[string]string
		want  string
	}{
		"no key sent":       {env: nil, want: "No API key was sent: RAMABANA_IMAGE_KEY is not set in this plugin's environment. Tell the user to set it"},
		"key refused":       {extra: `, "key_env": "IMG_KEY"`, env: map[string]string{"IMG_KEY": "sk-wrong"}, want: "Incorrect API key provided: [redacted]. You can find your API key at https://platform.example/keys. The API key in IMG_KEY was refused"},
		"key_env not set":   {extra: `, "key_env": "IMG_KEY"`, env: nil, want: "takes its API key from IMG_KEY, which is not set in this plugin's environment. Tell the user to set IMG_KEY in the host's environment and to start ramabana-mcp with --plugin-env IMG_KEY"},
		"the key is right":  {extra: `, "key_env": "IMG_KEY"`, env: map[string]string{"IMG_KEY": goodKey}},
		"blank key_env var": {extra: `, "key_env": "IMG_KEY"`, env: map[string]string{"IMG_KEY": "  "}, want: "--plugin-env IMG_KEY"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			g := connect(t, testServer(tc.env), sdk.Host{Web: true, ConfigDir: providerConfig(t, f, "auth", tc.extra)})
			res := sdktest.Call(t, g, "generate_image", map[string]any{"prompt": "a key"})
			if sdktest.Outcome(t, res.Text(), res.IsError, tc.want) && imageOf(res) == nil {
				t.Error("no image")
			}
		})
	}
}

func TestNoProvider(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		config string // "-" for no config dir, "" for no file
		want   []string
	}{
		"no config dir":       {config: "-", want: []string{"no image provider configured", "--cfg DIR", exampleConfig}},
		"no config file":      {config: "", want: []string{"no image provider configured", `add an "image" entry to /`, "config.json", exampleConfig, "--plugin-env"}},
		"no image entry":      {config: `{"web_search": {"provider": "brave"}}`, want: []string{"no image provider configured", exampleConfig}},
		"null image entry":    {config: `{"image": null}`, want: []string{"no image provider configured"}},
		"not JSON":            {config: `{"image": {"url": `, want: []string{"is not valid JSON", `"image" entry`}},
		"entry not an object": {config: `{"image": "https://x"}`, want: []string{`the "image" entry of`, "is not valid", "it takes url, model, key_env, size and timeout_seconds"}},
		"unknown key":         {config: `{"image": {"url": "https://x", "modle": "m"}}`, want: []string{`unknown field "modle"`}},
		"no url":              {config: `{"image": {"model": "m"}}`, want: []string{`has no "url"`}},
		"not http":            {config: `{"image": {"url": "ftp://x", "model": "m"}}`, want: []string{`"url" "ftp://x"`, "not an absolute http:// or https:// URL"}},
		"password hidden":     {config: `{"image": {"url": "file://u:hunter2@x/y", "model": "m"}}`, want: []string{"file://u:xxxxx@x/y"}},
		"no model":            {config: `{"image": {"url": "https://x"}}`, want: []string{`has no "model"`}},
		"bad size":            {config: `{"image": {"url": "https://x", "model": "m", "size": "huge"}}`, want: []string{`"size" "huge"`}},
		"timeout too long":    {config: `{"image": {"url": "https://x", "model": "m", "timeout_seconds": 6000}}`, want: []string{`"timeout_seconds" 6000`, "1 to 600"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var dir string
			switch tc.config {
			case "-":
			case "":
				dir = t.TempDir()
			default:
				dir = writeConfig(t, tc.config)
			}
			g := connect(t, testServer(nil), sdk.Host{Web: true, ConfigDir: dir})
			res := sdktest.Call(t, g, "generate_image", map[string]any{"prompt": "a cat"})
			for _, want := range tc.want {
				if !res.IsError || !strings.Contains(res.Text(), want) {
					t.Errorf("got error=%t %q; want an error containing %q", res.IsError, res.Text(), want)
				}
			}
			if strings.Contains(res.Text(), "hunter2") {
				t.Errorf("the password is shown: %s", res.Text())
			}
		})
	}
}

func TestWebOff(t *testing.T) {
	t.Parallel()
	f := newProvider(t)
	g := connect(t, testServer(nil), sdk.Host{Web: false, ConfigDir: providerConfig(t, f, "ok", "")})
	res := sdktest.Call(t, g, "generate_image", map[string]any{"prompt": "a cat"})
	if !res.IsError || !strings.Contains(res.Text(), "--web") {
		t.Errorf("got error=%t %q; want an error naming --web", res.IsError, res.Text())
	}
	if n := len(f.requestsSeen()); n != 0 {
		t.Errorf("%d requests reached the provider", n)
	}
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	f := newProvider(t)
	g := connect(t, testServer(nil), sdk.Host{Web: true, ConfigDir: providerConfig(t, f, "slow", `, "timeout_seconds": 1`)})
	res := sdktest.Call(t, g, "generate_image", map[string]any{"prompt": "a cat"})
	sdktest.Outcome(t, res.Text(), res.IsError, `did not answer within 1s; try again later, or ask the user to raise "timeout_seconds"`)
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	// A port nothing listens on: a closed server's.
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	cfg := writeConfig(t, fmt.Sprintf(`{"image": {"url": %q, "model": "m"}}`, closed.URL))
	g := connect(t, testServer(nil), sdk.Host{Web: true, ConfigDir: cfg})
	res := sdktest.Call(t, g, "generate_image", map[string]any{"prompt": "a cat"})
	sdktest.Outcome(t, res.Text(), res.IsError, "refused the connection; is it running at that address?")
}

// recorder keeps a call's progress messages and signals the first.
type recorder struct {
	mu    sync.Mutex
	msgs  []string
	first chan struct{}
}

func (r *recorder) Progress(_, _ float64, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.msgs) == 0 {
		close(r.first)
	}
	r.msgs = append(r.msgs, msg)
}

func (r *recorder) Log(sdk.LogLevel, string) {}

// TestProgress: a call waiting for a slow model says so, and the answer
// still comes. The provider answers only once progress was reported.
func TestProgress(t *testing.T) {
	t.Parallel()
	f := newProvider(t)
	s := testServer(nil)
	s.progressEvery = 10 * time.Millisecond
	g := connect(t, s, sdk.Host{Web: true, ConfigDir: providerConfig(t, f, "slow-ok", "")})
	rec := &recorder{first: make(chan struct{})}
	go func() {
		select {
		case <-rec.first:
			close(f.release)
		case <-time.After(proctest.Patience):
		}
	}()
	res, err := g.Call(context.Background(), &sdk.Call{Tool: "generate_image", Arguments: []byte(`{"prompt": "slowly"}`)}, rec)
	if err != nil || res.IsError || imageOf(res) == nil {
		t.Fatalf("call: %v %q", err, res.Text())
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.msgs) == 0 || !strings.HasPrefix(rec.msgs[0], "waiting for test-model (") {
		t.Errorf("progress %q", rec.msgs)
	}
}
