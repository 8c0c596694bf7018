package roots

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// LookPath is exec.LookPath for a program the data served must not
// choose: it skips every PATH entry that is relative or lies inside a
// served folder (through a link too), and a program that sits beside a
// pyvenv.cfg, or whose folder's parent holds one, inside a served folder
// (a virtualenv in the repository: python reads that file to choose its
// standard library). A PATH such as a project's .venv/bin or node_modules/
// .bin would otherwise let a file the model wrote, or a repository shipped,
// run in the place of the user's program.
func (r *Roots) LookPath(file string) (string, error) {
	if filepath.Base(file) != file {
		return "", fmt.Errorf("look up %q: a program name, not a path", file)
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) || r.inside(dir) {
			continue
		}
		p := filepath.Join(dir, file)
		fi, err := os.Stat(p)
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			continue
		}
		if r.inside(p) || r.venvInside(dir) {
			continue
		}
		return p, nil
	}
	return "", &fs.PathError{Op: "look up", Path: file, Err: errNotOutside}
}

var errNotOutside = errors.New("not found on PATH outside the served folders")

// inside reports whether p, or what it resolves to, lies in a served
// folder.
func (r *Roots) inside(p string) bool {
	if _, ok := r.Root(filepath.Clean(p)); ok {
		return true
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	_, ok := r.Root(real)
	return ok
}

// venvInside reports whether dir or its parent holds a pyvenv.cfg inside a
// served folder.
func (r *Roots) venvInside(dir string) bool {
	for _, d := range []string{dir, filepath.Dir(dir)} {
		cfg := filepath.Join(d, "pyvenv.cfg")
		if _, err := os.Lstat(cfg); err == nil && r.inside(cfg) {
			return true
		}
	}
	return false
}
