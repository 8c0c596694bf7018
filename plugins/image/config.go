package image

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ramabana/ramabana-mcp/sdk"
)

const (
	// defaultKeyEnv holds the API key when the config names no variable.
	defaultKeyEnv         = "RAMABANA_IMAGE_KEY"
	defaultSize           = "1024x1024"
	defaultTimeoutSeconds = 120
	maxTimeoutSeconds     = 600
)

// fileConfig is the "image" entry of config.json.
type fileConfig struct {
	URL            string `json:"url"`
	Model          string `json:"model"`
	KeyEnv         string `json:"key_env"`
	Size           string `json:"size"`
	TimeoutSeconds int    `json:"timeout_seconds"`
}

// provider is a checked configuration: where to ask, and how.
type provider struct {
	endpoint *url.URL
	// shown is the endpoint as messages name it: no password, no query.
	shown   string
	model   string
	key     string // "" sends none
	keyEnv  string
	size    string
	timeout time.Duration
	// file is the config file, for messages.
	file string
}

// sizeRE is a size the images API takes: WIDTHxHEIGHT, or auto.
var sizeRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([1-9][0-9]{0,4}x[1-9][0-9]{0,4}|auto)$`)
})

const exampleConfig = `{"image": {"url": "https://api.openai.com", "model": "gpt-image-1", "key_env": "OPENAI_API_KEY"}}`

// loadConfig reads the provider from <configDir>/config.json and checks
// it; every failure is a tool error that says what to fix.
func loadConfig(configDir string, getenv func(string) string) (*provider, error) {
	if configDir == "" {
		return nil, sdk.Failf("%s", setupHelp("config.json in the server's config dir (the host has none now; start ramabana-mcp with --cfg DIR)"))
	}
	path := filepath.Join(configDir, "config.json")
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, sdk.Failf("%s", setupHelp(path))
	case err != nil:
		return nil, sdk.Failf("cannot read the config file %s: %v", path, unwrapPath(err))
	}
	var file struct {
		Image json.RawMessage `json:"image"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, sdk.Failf("the config file %s is not valid JSON (%v); fix it so that generate_image can read its \"image\" entry", path, err)
	}
	if len(file.Image) == 0 || string(file.Image) == "null" {
		return nil, sdk.Failf("%s", setupHelp(path))
	}
	var fc fileConfig
	dec := json.NewDecoder(bytes.NewReader(file.Image))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fc); err != nil {
		return nil, sdk.Failf("the \"image\" entry of %s is not valid (%v); it takes url, model, key_env, size and timeout_seconds, for example %s", path, err, exampleConfig)
	}
	p := &provider{model: strings.TrimSpace(fc.Model), file: path}
	if strings.TrimSpace(fc.URL) == "" {
		return nil, sdk.Failf("the \"image\" entry of %s has no \"url\": give the base URL of an OpenAI-compatible images API, for example %s", path, exampleConfig)
	}
	if p.endpoint, err = endpoint(strings.TrimSpace(fc.URL)); err != nil {
		return nil, sdk.Failf("the \"url\" %q in the \"image\" entry of %s is not an absolute http:// or https:// URL", redactURL(fc.URL), path)
	}
	p.shown = shownURL(p.endpoint)
	if p.model == "" {
		return nil, sdk.Failf("the \"image\" entry of %s has no \"model\": name the image model to ask for (such as gpt-image-1 or dall-e-3)", path)
	}
	p.keyEnv = strings.TrimSpace(fc.KeyEnv)
	if p.keyEnv == "" {
		p.keyEnv = defaultKeyEnv
	}
	p.key = strings.TrimSpace(getenv(p.keyEnv))
	if p.key == "" && fc.KeyEnv != "" {
		return nil, sdk.Failf("the \"image\" entry of %s takes its API key from %s, which is not set in this plugin's environment. Tell the user to set %s in the host's environment and to start ramabana-mcp with --plugin-env %s: the host passes plugins only an allow-list of environment variables", path, p.keyEnv, p.keyEnv, p.keyEnv)
	}
	p.size = strings.TrimSpace(fc.Size)
	if p.size == "" {
		p.size = defaultSize
	}
	if !sizeRE().MatchString(p.size) {
		return nil, sdk.Failf("the \"size\" %q in the \"image\" entry of %s is not WIDTHxHEIGHT (such as 1024x1024) or auto", p.size, path)
	}
	switch s := fc.TimeoutSeconds; {
	case s == 0:
		p.timeout = defaultTimeoutSeconds * time.Second
	case s < 1 || s > maxTimeoutSeconds:
		return nil, sdk.Failf("the \"timeout_seconds\" %d in the \"image\" entry of %s is out of range: give 1 to %d", s, path, maxTimeoutSeconds)
	default:
		p.timeout = time.Duration(s) * time.Second
	}
	return p, nil
}

// setupHelp says how to configure a provider in where.
func setupHelp(where string) string {
	return fmt.Sprintf(`generate_image has no image provider configured. Tell the user to add an "image" entry to %s, for example:

  %s

url is the base URL of any OpenAI-compatible images API (requests go to {url}/v1/images/generations), model the image model to ask for, and key_env the environment variable holding the API key (%s by default; for a local server without a key, leave it out). The host passes plugins only an allow-listed environment, so ramabana-mcp must also be started with --plugin-env and that variable's name, e.g. --plugin-env OPENAI_API_KEY. Optional: "size" (default %s) and "timeout_seconds" (default %d).`,
		where, exampleConfig, defaultKeyEnv, defaultSize, defaultTimeoutSeconds)
}

// endpoint is where the images of base URL raw are asked for: as the ask
// agent and the embeddings client read a base URL, a URL without a path
// gets /v1, a trailing slash goes, and /images/generations is added unless
// the path ends with it. A query is kept (Azure wants its api-version).
func endpoint(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("images URL %q is not an http(s) URL", redactURL(raw))
	}
	u.Fragment, u.RawFragment = "", ""
	path := strings.TrimSuffix(u.Path, "/")
	switch {
	case strings.HasSuffix(path, "/images/generations"):
	case path == "":
		path = "/v1/images/generations"
	default:
		path += "/images/generations"
	}
	u.Path, u.RawPath = path, ""
	return u, nil
}

// shownURL is u as messages show it: a password and a query (which may
// hold a key) hidden.
func shownURL(u *url.URL) string {
	c := *u
	hidden := c.RawQuery != ""
	c.RawQuery = ""
	s := c.Redacted()
	if hidden {
		s += "?[query hidden]"
	}
	return s
}

// redactURL is raw with its password and query hidden, for a URL that may
// not parse.
func redactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return shownURL(u)
	}
	if i := strings.IndexAny(raw, "?@"); i >= 0 {
		return raw[:i] + "[hidden]"
	}
	return raw
}
