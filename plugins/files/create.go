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
	Path      string `json:"path" jsonschema:"file, relative to the first served folder"`
	Content   string `json:"content" jsonschema:"the whole content, written as given"`
	Overwrite bool   `json:"overwrite,omitempty" jsonschema:"replace an existing file"`
}

var createSpec = sdk.ToolSpec{
	Name:        "create_file",
	Title:       "Create file",
	Kind:        sdk.KindWrite,
	Description: `Create a file with content, and any missing parent directories, atomically. An existing file is refused unless overwrite is true (to change part of a file, use replace_text). Content is written as UTF-8.`,
}

var createSchema = sdk.LazySchemaFor[createArgs](func(p map[string]*jsonschema.Schema) {
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
