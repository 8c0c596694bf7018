package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// imagesAPI is a fake OpenAI-compatible images API on 127.0.0.1 that
// answers every generation with pic in base64, and records the requests'
// bodies and Authorization headers.
type imagesAPI struct {
	*httptest.Server
	pic []byte

	mu       sync.Mutex
	bodies   []map[string]any
	authSeen []string
}

func newImagesAPI(t *testing.T) *imagesAPI {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 5, 3))
	img.Set(2, 1, color.RGBA{G: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	api := &imagesAPI{pic: b.Bytes()}
	api.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/images/generations" {
			http.NotFound(w, r)
			return
		}
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		api.mu.Lock()
		api.bodies = append(api.bodies, body)
		api.authSeen = append(api.authSeen, r.Header.Get("Authorization"))
		api.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"data": []map[string]any{{"b64_json": base64.StdEncoding.EncodeToString(api.pic)}}})
	}))
	t.Cleanup(api.Close)
	return api
}

// imageConfig is a config dir whose config.json points the image group at
// url, with its key in $IMAGE_E2E_KEY.
func imageConfig(t *testing.T, url string) string {
	t.Helper()
	cfg := t.TempDir()
	conf := fmt.Sprintf(`{"image": {"url": %q, "model": "e2e-model", "key_env": "IMAGE_E2E_KEY"}}`, url)
	if err := os.WriteFile(filepath.Join(cfg, "config.json"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestGenerateImageThroughMCP runs the real binary with a config dir whose
// provider is a fake images API, and calls generate_image through an MCP
// client: the image comes back as image content, the key reaches the
// provider (passed with --plugin-env) and never the client, and with
// --write the image is saved in the served folder. --web=false leaves the
// tool out; with no provider, the tool is listed and says what to
// configure.
func TestGenerateImageThroughMCP(t *testing.T) {
	t.Parallel()
	const key = "sk-e2e-image-key-0123456789"
	api := newImagesAPI(t)

	t.Run("generates and saves", func(t *testing.T) {
		t.Parallel()
		root := project(t)
		s := startStdioEnv(t, []string{"IMAGE_E2E_KEY=" + key}, root,
			"--write", "--cfg", imageConfig(t, api.URL), "--plugin-env", "IMAGE_E2E_KEY")
		tool, ok := tools(t, s.session)["generate_image"]
		if !ok {
			t.Fatal("generate_image not listed")
		}
		if a := tool.Annotations; a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint || a.OpenWorldHint == nil || !*a.OpenWorldHint {
			t.Errorf("annotations %+v, want an open-world, destructive act tool (overwrite replaces a file)", a)
		}
		res, err := call(t, s.session, "generate_image", map[string]any{"prompt": "a green dot", "path": "art/dot.png"})
		if err != nil || res.IsError {
			t.Fatalf("generate_image: %v %q\nserver log:\n%s", err, text(res), s.stderr)
		}
		var img *mcp.ImageContent
		for _, c := range res.Content {
			if ic, ok := c.(*mcp.ImageContent); ok {
				img = ic
			}
		}
		if img == nil || img.MIMEType != "image/png" || !bytes.Equal(img.Data, api.pic) {
			t.Fatalf("image content %+v, want the provider's PNG; text %q", img, text(res))
		}
		if want := "Generated a 5x3 PNG image"; !strings.Contains(text(res), want) || !strings.Contains(text(res), "Saved to art/dot.png.") {
			t.Errorf("text %q", text(res))
		}
		if saved, err := os.ReadFile(filepath.Join(root, "art", "dot.png")); err != nil || !bytes.Equal(saved, api.pic) {
			t.Errorf("saved file: %d bytes, %v", len(saved), err)
		}
		api.mu.Lock()
		defer api.mu.Unlock()
		if len(api.bodies) != 1 || api.bodies[0]["model"] != "e2e-model" || api.bodies[0]["prompt"] != "a green dot" || api.authSeen[0] != "Bearer "+key {
			t.Errorf("the provider got %v with Authorization %q", api.bodies, api.authSeen)
		}
		if strings.Contains(s.stderr.String(), key) || strings.Contains(s.stdout.String(), key) {
			t.Error("the key is in the server's log or on its MCP stream")
		}
	})

	t.Run("--web=false leaves it out", func(t *testing.T) {
		t.Parallel()
		s := startStdio(t, project(t), "--web=false", "--cfg", imageConfig(t, api.URL))
		if _, ok := tools(t, s.session)["generate_image"]; ok {
			t.Error("generate_image listed with --web=false")
		}
		_, err := call(t, s.session, "generate_image", map[string]any{"prompt": "a dot"})
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || !strings.HasPrefix(rpc.Message, "Unknown tool: generate_image") {
			t.Errorf("call with --web=false: %v", err)
		}
	})

	t.Run("no provider configured", func(t *testing.T) {
		t.Parallel()
		s := startStdio(t, project(t))
		if _, ok := tools(t, s.session)["generate_image"]; !ok {
			t.Fatal("generate_image not listed without a provider")
		}
		res, err := call(t, s.session, "generate_image", map[string]any{"prompt": "a dot"})
		if err != nil || !res.IsError || !strings.Contains(text(res), `add an "image" entry to `) || !strings.Contains(text(res), "config.json") {
			t.Errorf("without a provider: %v %q", err, resultText(res, err))
		}
	})
}
