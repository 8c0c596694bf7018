package files

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/plugins/internal/atomicfile"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

type createArgs struct {
	Path      string `json:"path" jsonschema:"File to create: relative to the first served folder, or absolute inside a served folder. Missing parent directories are created."`
	Content   string `json:"content" jsonschema:"The whole content of the file, written as given (line endings included)."`
	Overwrite bool   `json:"overwrite,omitempty" jsonschema:"Replace the file if it exists. Default false: an existing file is an error."`
}

var createSpec = sdk.ToolSpec{
	Name:  "create_file",
	Title: "Create file",
	Kind:  sdk.KindWrite,
	Description: `Create a file with the given content, creating missing parent directories. Refuses a file that exists unless overwrite is true (to change part of a file, use replace_text or edit_file instead). An overwritten file keeps its permissions; a new one gets 0644.

The write is atomic: the file holds the old content or the new, never a mix. Writes stay inside the served folders. The result says how many bytes and lines were written.`,
}

var createSchema = sdk.SchemaFor[createArgs](func(p map[string]*jsonschema.Schema) {
	p["overwrite"].Default = []byte("false")
})

// newFileMode is the mode of a created file, whatever the umask.
const newFileMode fs.FileMode = 0o644

func (s *server) createFile(_ context.Context, r *roots.Roots, args createArgs) (*sdk.Result, error) {
	abs, err := resolveWrite(r, args.Path)
	if err != nil {
		return nil, err
	}
	display := r.Rel(abs)
	s.writeMu.Lock()
	defer s.writeMu.Unlock()

	var before []byte // nil: the file is new
	mode, verb := newFileMode, "created"
	fi, err := os.Stat(abs)
	switch {
	case err == nil && fi.IsDir():
		return nil, sdk.Failf("%s is a directory", display)
	case err == nil && !fi.Mode().IsRegular():
		return nil, sdk.Failf("%s exists and is not a regular file (%s)", display, fi.Mode().Type())
	case err == nil && !args.Overwrite:
		return nil, sdk.Failf("%s already exists (%d bytes); set overwrite=true to replace it, or change it with replace_text or edit_file", display, fi.Size())
	case err == nil:
		old, err := os.ReadFile(abs)
		if err != nil {
			return nil, sdk.Failf("cannot read %s: %v", display, unwrapPath(err))
		}
		mode, before, verb = atomicfile.KeptMode(fi.Mode()), old, "overwrote"
	case !os.IsNotExist(err):
		return nil, sdk.Failf("cannot create %s: %v", display, unwrapPath(err))
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, sdk.Failf("cannot create the directories of %s: %v", display, unwrapPath(err))
	}
	data := []byte(args.Content)
	if err := atomicfile.Write(abs, data, mode); err != nil {
		return nil, sdk.Failf("cannot write %s: %v", display, unwrapPath(err))
	}
	res := sdk.TextResult(fmt.Sprintf("%s %s (%s, %s)", verb, display, plural(len(data), "byte"), plural(countLines(data), "line")))
	res.Changes = []sdk.FileChange{sdk.NewFileChange(abs, before, data)}
	return res, nil
}
