package host

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/ramabana/ramabana-mcp/host/internal/plugincli"
	"github.com/ramabana/ramabana-mcp/host/internal/scaffold"
	"github.com/ramabana/ramabana-mcp/host/internal/upstreamcli"
	"github.com/ramabana/ramabana-mcp/internal/cliflag"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/python"
	"github.com/ramabana/ramabana-mcp/sdk/typescript"
)

// CommandEnv is what the plugin subcommands need of the running binary.
type CommandEnv struct {
	// Self is the server's binary, which serves the bundled groups.
	Self string
	// Version is the server's version.
	Version        string
	Stdout, Stderr io.Writer
}

// PluginCommand runs `ramabana-mcp plugin ARGS`: `plugin serve <group>`
// serves a bundled group as a plugin process (the server re-executes its
// binary so, and it returns when the plugin is told to stop), and the
// others manage the installed plugins (install, remove, list, verify).
func PluginCommand(ctx context.Context, args []string, env CommandEnv) error {
	if len(args) == 2 && args[0] == "serve" {
		newGroup, ok := bundled[args[1]]
		if !ok {
			return cliflag.Usage(fmt.Errorf("plugin serve: no bundled group %q (have %s)", args[1], strings.Join(BundledNames(), ", ")), plugincli.Help)
		}
		var opts []sdk.ServeOpt
		if allCPUs[args[1]] {
			opts = append(opts, sdk.WithAllCPUs())
		}
		sdk.Serve(newGroup(), opts...)
		return nil
	}
	return plugincli.Run(ctx, plugincli.Env{Self: env.Self, Bundled: BundledNames(), Version: env.Version, Langs: pluginLangs(), Stdout: env.Stdout, Stderr: env.Stderr}, args)
}

// pluginLangs are the languages `plugin new` writes a plugin in: Go with
// the sdk from its module, and the kits of the others copied into the
// plugin from this binary.
func pluginLangs() map[string]scaffold.Lang {
	return map[string]scaffold.Lang{
		"go": {Name: "go", Next: []string{
			"go mod tidy && go test ./...",
			"go build -o ramabana-plugin-{{NAME}} .",
			"ramabana-mcp plugin check ./ramabana-plugin-{{NAME}}",
			"ramabana-mcp plugin install ./ramabana-plugin-{{NAME}}",
		}},
		"python": {Name: "python", Kit: python.Kit(), KitDir: "ramabana_plugin", Next: []string{
			"/usr/bin/python3 -m unittest",
			"./build.sh",
			"ramabana-mcp plugin check ./dist/ramabana-plugin-{{NAME}}",
			"ramabana-mcp plugin install ./dist/ramabana-plugin-{{NAME}}",
		}},
		"typescript": {Name: "typescript", Kit: typescript.Kit(), KitDir: "ramabana", Next: []string{
			"npm install",
			"npm test",
			"npm run build",
			"ramabana-mcp plugin check ./dist/ramabana-plugin-{{NAME}}",
			"ramabana-mcp plugin install ./dist/ramabana-plugin-{{NAME}}",
		}},
	}
}

// UpstreamCommand runs `ramabana-mcp upstream ARGS`: diff and approve an
// upstream MCP server's tools against their pins.
func UpstreamCommand(ctx context.Context, args []string, env CommandEnv) error {
	return upstreamcli.Run(ctx, upstreamcli.Env{Version: env.Version, Stdout: env.Stdout, Stderr: env.Stderr}, args)
}
