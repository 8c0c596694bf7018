package host

import (
	"maps"
	"slices"

	"github.com/ramabana/ramabana-mcp/plugins/code"
	"github.com/ramabana/ramabana-mcp/plugins/files"
	"github.com/ramabana/ramabana-mcp/plugins/git"
	"github.com/ramabana/ramabana-mcp/plugins/image"
	"github.com/ramabana/ramabana-mcp/plugins/legacy"
	"github.com/ramabana/ramabana-mcp/plugins/lsp"
	"github.com/ramabana/ramabana-mcp/plugins/memory"
	"github.com/ramabana/ramabana-mcp/plugins/notebook"
	"github.com/ramabana/ramabana-mcp/plugins/shell"
	"github.com/ramabana/ramabana-mcp/plugins/web"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// bundled are the groups compiled into the server's binary. Each still
// runs in its own process: the server re-executes its binary as
// `plugin serve <name>` (PluginCommand).
var bundled = map[string]func() sdk.Group{
	"code":     func() sdk.Group { return code.New() },
	"files":    func() sdk.Group { return files.New() },
	"git":      func() sdk.Group { return git.New() },
	"image":    func() sdk.Group { return image.New() },
	"legacy":   func() sdk.Group { return legacy.New() },
	"lsp":      func() sdk.Group { return lsp.New() },
	"memory":   func() sdk.Group { return memory.New() },
	"notebook": func() sdk.Group { return notebook.New() },
	"shell":    func() sdk.Group { return shell.New() },
	"web":      func() sdk.Group { return web.New() },
}

// declares are the groups a bundled plugin declares beyond its own name
// (hub.Bundled.Declares): --groups is checked against them without
// building every group. TestBundledGroupsInEveryPlace checks them.
var declares = map[string][]string{"files": {"files", "exhash"}}

// allCPUs are the bundled groups served on every CPU (sdk.WithAllCPUs): the
// code group searches and outlines files on a worker per CPU. The others
// serve one call on one goroutine and run on one.
var allCPUs = map[string]bool{"code": true}

// BundledNames are the bundled groups' names, sorted.
func BundledNames() []string { return slices.Sorted(maps.Keys(bundled)) }
