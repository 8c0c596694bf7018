package files

import (
	"encoding/json"
	"errors"
	"sync"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// Version is the plugin's version, sent in Describe.
const Version = "0.1.0"

// New returns the files plugin, ready for sdk.Serve.
func New() *sdk.Toolbox {
	s := &server{}
	box := sdk.NewToolbox("files", sdk.WithVersion(Version),
		sdk.WithDescription("Read, list, create and edit text files in the served folders."))
	box.AddGroup(sdk.GroupSpec{
		Name:        "files",
		Description: "View files as numbered, hashed lines; list folders (gitignore-aware); create files; replace unique text.",
		Mode:        sdk.ModeDefault,
		LocalData:   true, // reads and writes this machine's files and stores only
	},
		tool(s, viewSpec, viewSchema, s.viewFile),
		tool(s, viewFilesSpec, viewFilesSchema, s.viewFiles),
		tool(s, fileInfoSpec, fileInfoSchema, s.fileInfo),
		tool(s, listSpec, listSchema, s.listFiles),
		tool(s, createSpec, createSchema, s.createFile),
		tool(s, replaceSpec, replaceSchema, s.replaceText),
		tool(s, moveSpec, moveSchema, s.moveFile),
		tool(s, deleteSpec, deleteSchema, s.deleteFile),
	)
	box.AddGroup(sdk.GroupSpec{
		Name:        "exhash",
		Description: "Edit files by line hash: edit_file anchors each edit on a line number and the 4-hex-digit hash view_file shows, and rejects the whole batch if any line changed.",
		Mode:        sdk.ModeOptIn,
		LocalData:   true, // reads and writes this machine's files and stores only
	},
		tool(s, editSpec, editSchema, s.editFile),
	)
	return box
}

// server holds what the tools share: the resolved roots per host context,
// and the lock that makes each write's read-modify-write step atomic with
// respect to the plugin's other writes.
type server struct {
	roots roots.Cache

	writeMu sync.Mutex
}

// tool declares a typed tool with its input schema. The schemas are
// declared with sdk.LazySchemaFor, so they are built by the first New, not
// at init by every process that links the package.
func tool[In any](s *server, spec sdk.ToolSpec, schema func() json.RawMessage, fn roots.Handler[In]) sdk.Tool {
	spec.InputSchema = schema()
	return roots.TypedTool(&s.roots, spec, fn)
}

// resolveRead and resolveWrite turn roots' refusals into tool errors. The
// Target they return is the only way the tools reach the file.
func resolveRead(r *roots.Roots, p string) (*roots.Target, error) {
	t, err := r.Read(p)
	if err != nil {
		return nil, sdk.Failf("%v", err)
	}
	return t, nil
}

func resolveWrite(r *roots.Roots, p string) (*roots.Target, error) {
	t, err := r.Write(p)
	if err != nil {
		if errors.Is(err, roots.ErrOutside) {
			return nil, sdk.Failf("%v; files can be written only inside the served folders", err)
		}
		return nil, sdk.Failf("%v", err)
	}
	return t, nil
}
