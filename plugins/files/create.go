package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/plugins/internal/atomicfile"
	"github.com/ramabana/ramabana-mcp/plugins/internal/textenc"
	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
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
	Description: `Create a file with the given content, creating missing parent directories. Refuses a file that exists unless overwrite is true (to change part of a file, use replace_text or edit_file instead). An overwritten file keeps its permissions, owner and extended attributes; a new one gets 0644. content is written exactly as given: a UTF-8 byte order mark (BOM) is written only if content starts with one, so overwriting a file that had one without it drops it (the result says so).

The write is atomic: the file holds the old content or the new, never a mix. Writes stay inside the served folders. The result says how many bytes and lines were written.`,
}

var createSchema = sdk.SchemaFor[createArgs](func(p map[string]*jsonschema.Schema) {
	p["overwrite"].Default = []byte("false")
})

// newFileMode is the mode of a created file, whatever the umask.
const newFileMode fs.FileMode = 0o644

func (s *server) createFile(ctx context.Context, r *roots.Roots, args createArgs) (*sdk.Result, error) {
	t, err := resolveWrite(r, args.Path)
	if err != nil {
		return nil, err
	}
	display := r.Rel(t.Abs)
	s.writeMu.Lock()
	defer s.writeMu.Unlock()

	data := []byte(args.Content)
	var before []byte // nil: the file is new
	verb := "created"
	fi, err := t.Stat()
	switch {
	case err == nil && fi.IsDir():
		return nil, sdk.Failf("%s is a directory", display)
	case err == nil && !fi.Mode().IsRegular():
		return nil, sdk.Failf("%s exists and is not a regular file (%s)", display, fi.Mode().Type())
	case err == nil && !args.Overwrite:
		return nil, sdk.Failf("%s already exists (%d bytes); set overwrite=true to replace it, or change it with replace_text or edit_file", display, fi.Size())
	case err == nil:
		// Binary files may be overwritten too: only the directory and
		// special-file checks apply.
		dir, name, err := t.Parent(false)
		if err != nil {
			return nil, sdk.Failf("cannot write %s: %v", display, unwrapPath(err))
		}
		defer dir.Close()
		err = atomicfile.Update(ctx, dir, name,
			func(fi fs.FileInfo) error {
				if !fi.Mode().IsRegular() {
					return sdk.Failf("%s exists and is not a regular file (%s)", display, fi.Mode().Type())
				}
				return nil
			},
			func(cur []byte, _ fs.FileInfo) ([]byte, error) {
				before = cur
				return data, nil
			})
		if err != nil {
			return nil, atomicfile.Failure(err, display, "read it again")
		}
		verb = "overwrote"
	case !errors.Is(err, fs.ErrNotExist):
		return nil, sdk.Failf("cannot create %s: %v", display, unwrapPath(err))
	default:
		dir, name, err := t.Parent(true)
		if err != nil {
			return nil, sdk.Failf("cannot create the directories of %s: %v", display, unwrapPath(err))
		}
		defer dir.Close()
		if err := atomicfile.Create(ctx, dir, name, data, newFileMode); err != nil {
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return nil, err
			}
			if errors.Is(err, fs.ErrExist) {
				return nil, sdk.Failf("%s appeared while it was being created, and was left as it is; set overwrite=true to replace it", display)
			}
			return nil, sdk.Failf("cannot create %s: %v", display, unwrapPath(err))
		}
	}
	msg := fmt.Sprintf("%s %s (%s, %s)", verb, display, wording.Count(len(data), "byte"), wording.Count(countLines(data), "line"))
	msg += encodingChange(before, args.Content)
	res := sdk.TextResult(msg)
	res.Changes = []sdk.FileChange{sdk.NewFileChange(t.Abs, before, data)}
	return res, nil
}

// encodingChange is the clause create_file's result adds when it
// overwrote a file, whose content was before, in another encoding than
// the UTF-8 it writes content in: content is the whole file, written as
// given, so a converted file becomes UTF-8 and a byte order mark stays
// only if content starts with one.
func encodingChange(before []byte, content string) string {
	if before == nil {
		return ""
	}
	const bom = "\uFEFF"
	switch enc, err := textenc.Detect(before); {
	case err != nil:
		return ""
	case enc.Converted():
		return fmt.Sprintf("; the old file was %s text, and the new content is written as UTF-8, as given", enc)
	case enc == textenc.UTF8BOM && !strings.HasPrefix(content, bom):
		return "; the old file began with a UTF-8 byte order mark, and the new content has none, as given"
	}
	return ""
}
