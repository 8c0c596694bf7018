package lsp

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// defaultIdle is how long a language server may go unused before it is
// stopped; the next call starts it again.
const defaultIdle = 10 * time.Minute

// config is the "lsp" entry of config.json in the host's config folder:
//
//	{"lsp": {"go": {"command": ["gopls"]},
//	         "typescript": {"command": ["typescript-language-server", "--stdio"], "tsserver": "/usr/lib/node_modules/typescript/lib/tsserver.js"},
//	         "idle_seconds": 600}}
//
// Every field is optional.
type config struct {
	servers map[string]serverConfig
	idle    time.Duration
	file    string // where it was read, for messages; "" without one
}

// serverConfig is one language's entry.
type serverConfig struct {
	// Command is the server's program and arguments; a program without a
	// slash is looked up on PATH.
	Command []string `json:"command"`
	// TSServer is tsserver.js for typescript-language-server; by default
	// the one installed beside it.
	TSServer string `json:"tsserver"`
}

const exampleConfig = `{"lsp": {"go": {"command": ["gopls"]}, "python": {"command": ["basedpyright-langserver", "--stdio"]}, "idle_seconds": 600}}`

// loadConfig reads the "lsp" entry of <configDir>/config.json; a missing
// file or entry is the defaults. Every problem is a tool error saying what
// to fix.
func loadConfig(configDir string) (*config, error) {
	c := &config{servers: map[string]serverConfig{}, idle: defaultIdle}
	if configDir == "" {
		return c, nil
	}
	path := filepath.Join(configDir, "config.json")
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, sdk.Failf("cannot read the config file %s: %v", path, err)
	}
	var file struct {
		LSP json.RawMessage `json:"lsp"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, sdk.Failf("the config file %s is not valid JSON (%v); fix it so that the language servers' \"lsp\" entry can be read", path, err)
	}
	if len(file.LSP) == 0 || string(file.LSP) == "null" {
		return c, nil
	}
	c.file = path
	var entry struct {
		Go          *serverConfig `json:"go"`
		Python      *serverConfig `json:"python"`
		TypeScript  *serverConfig `json:"typescript"`
		IdleSeconds *int          `json:"idle_seconds"`
	}
	dec := json.NewDecoder(bytes.NewReader(file.LSP))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&entry); err != nil {
		return nil, sdk.Failf("the \"lsp\" entry of %s is not valid (%v); it takes go, python, typescript (each {\"command\": [...]}) and idle_seconds, for example %s", path, err, exampleConfig)
	}
	for name, sc := range map[string]*serverConfig{"go": entry.Go, "python": entry.Python, "typescript": entry.TypeScript} {
		if sc == nil {
			continue
		}
		if len(sc.Command) == 0 || sc.Command[0] == "" {
			return nil, sdk.Failf("the %q server in the \"lsp\" entry of %s has no command: give the program and its arguments, for example %s", name, path, exampleConfig)
		}
		if sc.TSServer != "" && !filepath.IsAbs(sc.TSServer) {
			return nil, sdk.Failf("the \"tsserver\" %q in the \"lsp\" entry of %s is not an absolute path", sc.TSServer, path)
		}
		c.servers[name] = *sc
	}
	if s := entry.IdleSeconds; s != nil {
		if *s < 0 {
			return nil, sdk.Failf("the \"idle_seconds\" %d in the \"lsp\" entry of %s is negative: give 0 to keep servers running, or the seconds a server may stay unused", *s, path)
		}
		c.idle = time.Duration(*s) * time.Second
	}
	return c, nil
}

// where names the config for messages.
func (c *config) where(configDir string) string {
	if c.file != "" {
		return c.file
	}
	if configDir == "" {
		return "config.json in the server's config folder (start ramabana-mcp with --cfg DIR)"
	}
	return filepath.Join(configDir, "config.json")
}

// noServer is the error for a language without a server.
func noServer(l *language, why string, c *config, configDir string) error {
	return sdk.Failf("no language server for %s files: %s. Tell the user to %s, or to name a server in the \"lsp\" entry of %s, for example %s",
		l.title, why, l.install, c.where(configDir), exampleConfig)
}
