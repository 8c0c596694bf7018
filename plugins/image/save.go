package image

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/ramabana/ramabana-mcp/plugins/internal/atomicfile"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// newFileMode is the mode of a created image, whatever the umask.
const newFileMode fs.FileMode = 0o644

// destination is where a call saves its image, checked before the image
// is generated.
type destination struct {
	r         *roots.Roots
	path      string // as given
	format    format // the one its extension names
	overwrite bool
}

// destination checks that path may be written with the host's policy:
// writes allowed, an image extension, inside a served folder, and not an
// existing file unless overwrite.
func (s *server) destination(host sdk.Host, path string, overwrite bool) (*destination, error) {
	if !host.Write {
		return nil, sdk.Failf("path saves the image to a file, and this server is read-only (ramabana-mcp was started without --write). Call again without path to get the image only, or ask the user to restart ramabana-mcp with --write")
	}
	f, ok := extensions[strings.ToLower(filepath.Ext(path))]
	if !ok {
		return nil, sdk.Failf("path %q must end in .png, .jpg, .jpeg or .webp, the formats an image comes in", path)
	}
	r, err := s.roots.For(host)
	if err != nil {
		return nil, fmt.Errorf("served folders: %w", err)
	}
	d := &destination{r: r, path: path, format: f, overwrite: overwrite}
	if _, _, err := d.target(path); err != nil {
		return nil, err
	}
	return d, nil
}

// target resolves p for writing, and refuses a directory, a special file,
// and an existing file unless overwrite. exists says whether it exists.
func (d *destination) target(p string) (t *roots.Target, exists bool, err error) {
	t, err = d.r.Write(p)
	if err != nil {
		if errors.Is(err, roots.ErrOutside) {
			return nil, false, sdk.Failf("%v; images can be saved only inside the served folders", err)
		}
		return nil, false, sdk.Failf("%v", err)
	}
	display := d.r.Rel(t.Abs)
	fi, err := t.Stat()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return t, false, nil
	case err != nil:
		return nil, false, sdk.Failf("cannot save to %s: %v", display, unwrapPath(err))
	case fi.IsDir():
		return nil, false, sdk.Failf("%s is a directory; give a file name ending in .png, .jpg, .jpeg or .webp", display)
	case !fi.Mode().IsRegular():
		return nil, false, sdk.Failf("%s exists and is not a regular file (%s)", display, fi.Mode().Type())
	case !d.overwrite:
		return nil, false, sdk.Failf("%s already exists (%s); set overwrite=true to replace it, or choose another path", display, byteSize(int(fi.Size())))
	}
	return t, true, nil
}

// save writes img atomically: to the path given, or, when the provider
// made another format than its extension names, to the same name with
// the right extension. It returns what to tell the model and the change.
func (d *destination) save(ctx context.Context, img *generated) (saved string, change sdk.FileChange, err error) {
	p, note := d.path, ""
	if img.format != d.format {
		p = strings.TrimSuffix(d.path, filepath.Ext(d.path)) + img.format.ext
		note = fmt.Sprintf(" (the provider made a %s image, so the name ends in %s, not %s)", img.format.name, img.format.ext, filepath.Ext(d.path))
	}
	t, exists, err := d.target(p)
	if err != nil {
		return "", change, err
	}
	display := d.r.Rel(t.Abs)
	var before []byte // nil: the file is new
	verb := "Saved to"
	if exists {
		dir, name, err := t.Parent(false)
		if err != nil {
			return "", change, sdk.Failf("cannot save to %s: %v", display, unwrapPath(err))
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
				return img.data, nil
			})
		if err != nil {
			return "", change, atomicfile.Failure(err, display, "call again")
		}
		verb = "Replaced"
	} else {
		dir, name, err := t.Parent(true)
		if err != nil {
			return "", change, sdk.Failf("cannot create the directories of %s: %v", display, unwrapPath(err))
		}
		defer dir.Close()
		if err := atomicfile.Create(ctx, dir, name, img.data, newFileMode); err != nil {
			switch {
			case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
				return "", change, err
			case errors.Is(err, fs.ErrExist):
				return "", change, sdk.Failf("%s appeared while the image was being generated, and was left as it is", display)
			}
			return "", change, sdk.Failf("cannot create %s: %v", display, unwrapPath(err))
		}
	}
	return fmt.Sprintf("%s %s%s.", verb, display, note), sdk.NewFileChange(t.Abs, before, img.data), nil
}
