package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/plugins/internal/textenc"
	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// maxViewFiles bounds view_files' and file_info's list of paths.
const maxViewFiles = 20

type viewFilesArgs struct {
	Paths []string `json:"paths" jsonschema:"files, relative to the first served folder"`
}

var viewFilesSpec = sdk.ToolSpec{
	Name:        "view_files",
	Title:       "View files",
	Kind:        sdk.KindRead,
	Description: `Show several text files in one call, each under a "==> path <==" line, as view_file shows one, from its first line. The files share view_file's page: each gets an even share of what is left, and a file cut short says how to read on with view_file. A file that cannot be shown says why; the others are shown.`,
}

var viewFilesSchema = sdk.LazySchemaFor[viewFilesArgs](func(p map[string]*jsonschema.Schema) {
	p["paths"].MinItems, p["paths"].MaxItems = new(1), new(maxViewFiles)
})

func (s *server) viewFiles(_ context.Context, r *roots.Roots, args viewFilesArgs) (*sdk.Result, error) {
	if len(args.Paths) == 0 || len(args.Paths) > maxViewFiles {
		return nil, sdk.Failf("paths: give 1 to %d files (got %d)", maxViewFiles, len(args.Paths))
	}
	var b strings.Builder
	left := maxViewOutput
	for i, p := range args.Paths {
		share := left / (len(args.Paths) - i)
		start := b.Len()
		fmt.Fprintf(&b, "==> %s <==\n", p)
		text, err := s.viewOne(r, p, share)
		if err != nil {
			var te *sdk.ToolError
			if errors.As(err, &te) {
				text = te.Error()
			} else {
				return nil, err
			}
		}
		b.WriteString(text)
		if !strings.HasSuffix(text, "\n") {
			b.WriteByte('\n')
		}
		left -= b.Len() - start
		if left < 0 {
			left = 0
		}
	}
	return sdk.TextResult(strings.TrimSuffix(b.String(), "\n")), nil
}

// viewOne is one file of view_files, in at most budget bytes of lines.
func (s *server) viewOne(r *roots.Roots, p string, budget int) (string, error) {
	t, err := resolveRead(r, p)
	if err != nil {
		return "", err
	}
	f, err := readFile(t, r.Rel(t.Abs), "view_files")
	if err != nil {
		return "", err
	}
	text, err := renderPage(f.text, f.display, page{}, max(budget, 1))
	if err != nil {
		return "", err
	}
	if note := encodingNote(f.enc); note != "" {
		text = note + "\n" + text
	}
	return text, nil
}

type fileInfoArgs struct {
	Paths []string `json:"paths" jsonschema:"files or folders, relative to the first served folder"`
}

var fileInfoSpec = sdk.ToolSpec{
	Name:        "file_info",
	Title:       "File information",
	Kind:        sdk.KindRead,
	Description: `For each path: its kind (file, folder, symbolic link and where it points), size, modification time and mode; for a text file its encoding and line count; for a binary file, that it is one.`,
}

var fileInfoSchema = sdk.LazySchemaFor[fileInfoArgs](func(p map[string]*jsonschema.Schema) {
	p["paths"].MinItems, p["paths"].MaxItems = new(1), new(maxViewFiles)
})

func (s *server) fileInfo(_ context.Context, r *roots.Roots, args fileInfoArgs) (*sdk.Result, error) {
	if len(args.Paths) == 0 || len(args.Paths) > maxViewFiles {
		return nil, sdk.Failf("paths: give 1 to %d paths (got %d)", maxViewFiles, len(args.Paths))
	}
	var lines []string
	for _, p := range args.Paths {
		lines = append(lines, infoLine(r, p))
	}
	return sdk.TextResult(strings.Join(lines, "\n")), nil
}

// infoLine is file_info's line for p: of the directory entry itself, so a
// symbolic link inside the served folders is described as one
// (roots.WriteEntry resolves only its parent); a path outside them, when
// reads outside are allowed, as it resolves.
func infoLine(r *roots.Roots, p string) string {
	t, err := r.WriteEntry(p)
	if err != nil {
		if t, err = r.Read(p); err != nil {
			return fmt.Sprintf("%s: %v", p, err)
		}
	}
	display := r.Rel(t.Abs)
	fi, err := t.Lstat()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return display + ": does not exist"
		}
		return fmt.Sprintf("%s: %v", display, unwrapPath(err))
	}
	when := fi.ModTime().UTC().Format(time.RFC3339)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := t.Readlink()
		return fmt.Sprintf("%s: symbolic link to %s, modified %s", display, target, when)
	case fi.IsDir():
		return fmt.Sprintf("%s: folder, mode %s, modified %s", display, fi.Mode().Perm(), when)
	case !fi.Mode().IsRegular():
		return fmt.Sprintf("%s: %s, modified %s", display, fi.Mode().Type(), when)
	}
	line := fmt.Sprintf("%s: file, %s, mode %s, modified %s", display, wording.Count(int(fi.Size()), "byte"), fi.Mode().Perm(), when)
	f, err := readFile(t, display, "file_info")
	if err != nil {
		var te *sdk.ToolError
		if errors.As(err, &te) && strings.Contains(te.Error(), "binary") {
			return line + ", binary"
		}
		return line
	}
	enc := "UTF-8"
	if f.enc != textenc.UTF8 {
		enc = f.enc.String()
	}
	return fmt.Sprintf("%s, %s text, %s", line, enc, wording.Count(countLines(f.text), "line"))
}
