package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

type moveArgs struct {
	From      string `json:"from" jsonschema:"file (or folder, with directory) to move, relative to the first served folder"`
	To        string `json:"to" jsonschema:"its new path; missing parent folders are made"`
	Overwrite bool   `json:"overwrite,omitempty" jsonschema:"replace a file already at to"`
	Directory bool   `json:"directory,omitempty" jsonschema:"from is a folder: move it with everything in it"`
}

var moveSpec = sdk.ToolSpec{
	Name:        "move_file",
	Title:       "Move or rename file",
	Kind:        sdk.KindWrite,
	Description: `Move or rename a file within a served folder, making missing parent folders. A file at the new path is refused unless overwrite is true; a folder moves only with directory=true.`,
}

var moveSchema = sdk.LazySchemaFor[moveArgs](func(p map[string]*jsonschema.Schema) {
	p["overwrite"].Default = []byte("false")
	p["directory"].Default = []byte("false")
})

type deleteArgs struct {
	Path      string `json:"path" jsonschema:"file (or folder, with directory) to delete, relative to the first served folder"`
	Directory bool   `json:"directory,omitempty" jsonschema:"path is a folder: delete it with everything in it"`
}

var deleteSpec = sdk.ToolSpec{
	Name:        "delete_file",
	Title:       "Delete file",
	Kind:        sdk.KindWrite,
	Description: `Delete a file (a symbolic link itself, not what it points to). A folder is deleted, with everything in it, only with directory=true; a served folder itself never.`,
}

var deleteSchema = sdk.LazySchemaFor[deleteArgs](func(p map[string]*jsonschema.Schema) {
	p["directory"].Default = []byte("false")
})

// maxRecorded bounds the content a move or a delete reads to record in
// the changes: a larger file is recorded by path alone.
const maxRecorded = 8 << 20

// recorded is the content of the regular file t, for its change record;
// nil for another kind of file, or one larger than maxRecorded.
func recorded(t *roots.Target, fi fs.FileInfo) []byte {
	if !fi.Mode().IsRegular() || fi.Size() > maxRecorded {
		return nil
	}
	f, err := t.Open()
	if err != nil {
		return nil
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRecorded+1))
	if err != nil || len(b) > maxRecorded {
		return nil
	}
	return b
}

func (s *server) moveFile(_ context.Context, r *roots.Roots, args moveArgs) (*sdk.Result, error) {
	from, err := resolveEntry(r, args.From)
	if err != nil {
		return nil, err
	}
	to, err := resolveEntry(r, args.To)
	if err != nil {
		return nil, err
	}
	src, dst := r.Rel(from.Abs), r.Rel(to.Abs)
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	fi, err := from.Lstat()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, sdk.Failf("%s does not exist", src)
	case err != nil:
		return nil, sdk.Failf("cannot move %s: %v", src, unwrapPath(err))
	case fi.IsDir() && !args.Directory:
		return nil, sdk.Failf("%s is a folder; set directory=true to move it with everything in it", src)
	case from.Abs == to.Abs:
		return nil, sdk.Failf("%s and %s are the same path", src, dst)
	}
	var replaced []byte
	var replacedFile bool
	switch tfi, err := to.Lstat(); {
	case err == nil && tfi.IsDir():
		return nil, sdk.Failf("%s is a folder; give the full new path, folder and name", dst)
	case err == nil && !args.Overwrite:
		return nil, sdk.Failf("%s already exists; set overwrite=true to replace it", dst)
	case err == nil:
		replaced, replacedFile = recorded(to, tfi), true
	case !errors.Is(err, fs.ErrNotExist):
		return nil, sdk.Failf("cannot move to %s: %v", dst, unwrapPath(err))
	}
	data := recorded(from, fi)
	dir, _, err := to.Parent(true)
	if err != nil {
		return nil, sdk.Failf("cannot make the folders of %s: %v", dst, unwrapPath(err))
	}
	dir.Close()
	if err := from.Rename(to); err != nil {
		return nil, sdk.Failf("cannot move %s to %s: %v", src, dst, unwrapPath(err))
	}
	msg := fmt.Sprintf("moved %s to %s", src, dst)
	if replacedFile {
		msg += " (replacing the file there)"
	}
	res := sdk.TextResult(msg)
	if fi.Mode().IsRegular() && data != nil && (!replacedFile || replaced != nil) {
		res.Changes = []sdk.FileChange{sdk.NewFileChange(from.Abs, data, nil), sdk.NewFileChange(to.Abs, replaced, data)}
	}
	return res, nil
}

func (s *server) deleteFile(_ context.Context, r *roots.Roots, args deleteArgs) (*sdk.Result, error) {
	t, err := resolveEntry(r, args.Path)
	if err != nil {
		return nil, err
	}
	display := r.Rel(t.Abs)
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	fi, err := t.Lstat()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, sdk.Failf("%s does not exist", display)
	case err != nil:
		return nil, sdk.Failf("cannot delete %s: %v", display, unwrapPath(err))
	case fi.IsDir() && !args.Directory:
		return nil, sdk.Failf("%s is a folder; set directory=true to delete it with everything in it", display)
	}
	data := recorded(t, fi)
	if err := t.Remove(fi.IsDir()); err != nil {
		return nil, sdk.Failf("cannot delete %s: %v", display, unwrapPath(err))
	}
	res := sdk.TextResult(fmt.Sprintf("deleted %s", display))
	switch {
	case fi.IsDir():
		res = sdk.TextResult(fmt.Sprintf("deleted the folder %s with everything in it", display))
	case fi.Mode().IsRegular():
		res = sdk.TextResult(fmt.Sprintf("deleted %s (%s)", display, wording.Count(int(fi.Size()), "byte")))
		if data != nil {
			res.Changes = []sdk.FileChange{sdk.NewFileChange(t.Abs, data, nil)}
		}
	}
	return res, nil
}

// resolveEntry is resolveWrite for a path whose last element is the
// directory entry itself (roots.WriteEntry): a symbolic link is moved or
// deleted, not what it points to.
func resolveEntry(r *roots.Roots, p string) (*roots.Target, error) {
	t, err := r.WriteEntry(p)
	if err != nil {
		if errors.Is(err, roots.ErrOutside) {
			return nil, sdk.Failf("%v; files can be written only inside the served folders", err)
		}
		return nil, sdk.Failf("%v", err)
	}
	return t, nil
}
