package shell

import (
	"fmt"
	"strings"
	"sync"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// Version is the plugin's version, sent in Describe.
const Version = "0.1.0"

// New returns the shell plugin, ready for sdk.Serve.
func New() *sdk.Toolbox {
	s := &server{}
	sdk.AtExit(running.killAll)
	box := sdk.NewToolbox("shell", Version, "Run shell commands in the served folders.")
	box.AddGroup(sdk.GroupSpec{
		Name:        "shell",
		Description: "Run a bash command line in a served folder, with a timeout that kills everything it started, capped output and progress.",
		Mode:        sdk.ModeDefault,
	},
		sdk.TypedTool(runSpec, s.runCommand),
	)
	return box
}

// server holds the resolved roots per host context.
type server struct {
	mu    sync.Mutex
	roots map[string]*roots.Roots
}

// maxCachedRoots bounds the roots cache; host contexts rarely change.
const maxCachedRoots = 8

// rootsFor returns the roots of a host context, built once per distinct
// context. A served folder that cannot be resolved is a host fault.
func (s *server) rootsFor(h sdk.Host) (*roots.Roots, error) {
	key := strings.Join(h.Roots, "\x00")
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.roots[key]; ok {
		return r, nil
	}
	// Reads outside do not matter: a working directory is resolved as a
	// write, always inside.
	r, err := roots.New(h.Roots, false)
	if err != nil {
		return nil, fmt.Errorf("served folders: %w", err)
	}
	if s.roots == nil || len(s.roots) >= maxCachedRoots {
		s.roots = map[string]*roots.Roots{}
	}
	s.roots[key] = r
	return r, nil
}
