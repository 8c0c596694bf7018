package shell

import (
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// Version is the plugin's version, sent in Describe.
const Version = "0.1.0"

// New returns the shell plugin, ready for sdk.Serve.
func New() *sdk.Toolbox {
	s := &server{}
	spec := runSpec
	spec.InputSchema = runSchema()
	sdk.AtExit(removeTempBase)
	sdk.AtExit(running.killAll) // hooks run in reverse: commands first
	box := sdk.NewToolbox("shell", sdk.WithVersion(Version),
		sdk.WithDescription("Run shell commands in the served folders."))
	box.AddGroup(sdk.GroupSpec{
		Name:        "shell",
		Description: "Run a bash command line in a served folder, with a timeout that kills everything it started, capped output and progress.",
		Mode:        sdk.ModeDefault,
	},
		sdk.TypedTool(spec, s.runCommand),
	)
	return box
}

// server holds the resolved roots per host context.
type server struct {
	roots roots.Cache
}
