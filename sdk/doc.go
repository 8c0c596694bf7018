// Package sdk is what a Go plugin author imports to serve a tool group to
// ramabana-mcp, and the contract the host uses to talk to any plugin.
//
// A plugin is a program whose main is one call:
//
//	func main() { sdk.Serve(files.New()) }
//
// Serve speaks the go-plugin handshake on stdout, serves the
// ramabana.plugin.v1.ToolGroupService over gRPC, recovers panics in tool
// handlers (they become tool errors), and exits when the host goes away.
//
// A [Group] describes its tools and runs them. Most plugins build one with
// [NewToolbox] and declare each tool with [Tool] or [TypedTool], which derives
// the input JSON Schema from a Go struct, and the output schema from the
// handler's output type unless that is *[Result]:
//
//	type viewArgs struct {
//		Path string `json:"path" jsonschema:"file to show, relative to a root"`
//	}
//
//	box := sdk.NewToolbox("files", sdk.WithVersion("0.1.0"), sdk.WithDescription("read and edit files"))
//	box.AddGroup(sdk.GroupSpec{Name: "files"},
//		sdk.TypedTool(sdk.ToolSpec{Name: "view_file", Kind: sdk.KindRead},
//			func(ctx context.Context, req *sdk.Request, args viewArgs) (*sdk.Result, error) {
//				return sdk.TextResult("..."), nil
//			}))
//
// The package's Example is a complete plugin.
//
// A tool serves an agent at one stage of its run, its task (docs/agent-tasks.md): context
// tools build the prompt, completion tools (TypedTool's, the default) are
// offered to the model, post tools run after the result, evaluation tools
// judge it, skill tools hold instructions, none tools are for other
// clients. [ContextTool], [EvaluationTool], [PostTool], [SkillTool] (or
// [SkillText]) and [NoneTool] declare each with a handler of the type its
// task returns, and check the rest at start-up. examples/tasks-plugin
// declares one of each.
//
// The same Go types are used on both sides: the host talks to every plugin
// process, whatever its language, through a [Group] too, so tests run a
// group in-process over real gRPC (package sdktest) exactly as the host
// sees it, and with the host's own checks: a description is checked by
// [Description.Validate], and arguments against the tool's input schema before a
// handler sees them. [Toolbox.AddGroup] runs the same checks at start-up, but
// for compiling the schemas, which the host does when it launches a plugin
// binary (a bundled group's, which the server's tests compile, at each
// tool's first call).
//
// A handler reports a failure a model can act on (a bad path, a stale line)
// by returning [Failf]: the toolbox turns it into a result with IsError set
// and the message as its text. Any other Go error it returns is a fault,
// and the host reports it as a tool error naming the group.
//
// When the host traces its calls (--otel), a handler's ctx carries the
// host's span as its remote parent (OpenTelemetry's
// trace.SpanContextFromContext): spans the plugin starts from ctx, with an
// OpenTelemetry SDK of its own, join the host's trace. The package itself
// links only the OpenTelemetry API and its W3C propagator.
package sdk
