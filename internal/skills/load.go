package skills

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Root is a folder whose immediate subfolders are skill folders.
type Root struct {
	Dir    string
	Source Source
	// Within, when set, is a folder that every file of this root must
	// resolve inside at the moment it is read (through os.Root): the served
	// folder, for project skills, which come from a repository that may be
	// hostile. A link out of it, absolute links included, is skipped with a
	// warning.
	Within string
}

// Warning is a problem Load or Add found and skipped past: a malformed
// SKILL.md, an unreadable folder, or a skill shadowed by another.
type Warning struct {
	Path    string // the file or folder concerned (for a shadowed skill, the one left out)
	Message string
}

func (w Warning) String() string {
	if w.Path == "" {
		return w.Message
	}
	return w.Path + ": " + w.Message
}

// FileName is the name of the file that makes a folder a skill.
const FileName = "SKILL.md"

// Load scans each root's immediate subfolders for a SKILL.md, parses and
// validates it, and indexes the skills by name. Roots that do not exist are
// skipped silently; a subfolder without a SKILL.md is not a skill and is
// skipped silently. A skill folder may be a symbolic link, but its SKILL.md
// must be a regular file of at most [MaxFileSize] bytes.
//
// When two skills share a name, the one from the higher-precedence source
// wins (Project, then Config, then User), and among roots of the same source
// the one listed first; every skill left out yields a Warning. A file reached
// twice (two roots naming the same folder) is indexed once, without a
// warning. Load never returns an error: every problem is a Warning, in the
// order found.
func Load(roots []Root) (*Index, []Warning) {
	type found struct {
		skill Skill
		order int // root index, for same-source precedence
		real  string
	}
	var (
		all      []found
		warnings []Warning
	)
	for i, root := range roots {
		fsys, dir, done, err := root.open()
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				warnings = append(warnings, Warning{root.Dir, fmt.Sprintf("cannot list %s skills: %v", root.Source, unwrapPath(err))})
			}
			continue
		}
		entries, err := fs.ReadDir(fsys, dir)
		defer done()
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				warnings = append(warnings, Warning{root.Dir, fmt.Sprintf("cannot list %s skills: %v", root.Source, unwrapPath(err))})
			}
			continue
		}
		for _, e := range entries {
			sub := dir + "/" + e.Name()
			if !e.IsDir() {
				if e.Type()&fs.ModeSymlink == 0 {
					continue
				}
				info, err := fs.Stat(fsys, sub)
				if err != nil {
					msg := "broken link"
					if root.Within != "" && !errors.Is(err, fs.ErrNotExist) {
						msg = "a link that leaves " + root.Within
					}
					warnings = append(warnings, Warning{filepath.Join(root.Dir, e.Name()), fmt.Sprintf("skipped: %s: %v", msg, unwrapPath(err))})
					continue
				}
				if !info.IsDir() {
					continue
				}
			}
			s, real, err := loadSkill(fsys, sub, filepath.Join(root.Dir, e.Name()), e.Name())
			if err != nil {
				if !errors.Is(err, errNotSkill) {
					warnings = append(warnings, Warning{filepath.Join(root.Dir, e.Name(), FileName), "skipped: " + err.Error()})
				}
				continue
			}
			s.Source = root.Source
			all = append(all, found{s, i, real})
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if ra, rb := a.skill.Source.rank(), b.skill.Source.rank(); ra != rb {
			return ra < rb
		}
		return a.order < b.order
	})
	ix := NewIndex()
	seen := map[string]bool{} // real paths already indexed or reported
	for _, f := range all {
		if seen[f.real] {
			continue
		}
		seen[f.real] = true
		if prev, dup := ix.byName[f.skill.Name]; dup {
			warnings = append(warnings, shadowWarning(prev, f.skill))
			continue
		}
		ix.byName[f.skill.Name] = f.skill
	}
	return ix, warnings
}

// shadowWarning describes skill lost, left out because kept has its name.
func shadowWarning(kept, lost Skill) Warning {
	return Warning{
		Path: lost.Path,
		Message: fmt.Sprintf("%s skill %q at %s shadows the %s skill at %s",
			kept.Source, kept.Name, where(kept), lost.Source, where(lost)),
	}
}

func where(s Skill) string {
	if s.Path != "" {
		return s.Path
	}
	return "(served by a plugin)"
}

// errNotSkill marks a folder without a SKILL.md.
var errNotSkill = errors.New("no " + FileName)

// open returns the file system the root's files are read through, the
// root's folder in it, and what closes it: the whole file system, or, with
// Within, an os.Root of Within that no link can leave.
func (r Root) open() (fs.FS, string, func(), error) {
	if r.Within == "" {
		dir := filepath.Clean(r.Dir)
		if filepath.IsAbs(dir) {
			return os.DirFS("/"), filepath.ToSlash(strings.TrimPrefix(dir, "/")), func() {}, nil
		}
		return os.DirFS("."), filepath.ToSlash(dir), func() {}, nil
	}
	rel, err := filepath.Rel(r.Within, r.Dir)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, "", nil, fmt.Errorf("%s is not inside %s", r.Dir, r.Within)
	}
	root, err := os.OpenRoot(r.Within)
	if err != nil {
		return nil, "", nil, err
	}
	return root.FS(), filepath.ToSlash(rel), func() { _ = root.Close() }, nil
}

// loadSkill reads and validates SKILL.md in the folder sub of fsys, shown
// as dir and named name. It also returns the file's real path, to
// recognise one file reached twice.
func loadSkill(fsys fs.FS, sub, dir, name string) (Skill, string, error) {
	path := filepath.Join(dir, FileName)
	file := sub + "/" + FileName
	info, err := fs.Lstat(fsys, file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Skill{}, "", errNotSkill
	case err != nil:
		return Skill{}, "", unwrapPath(err)
	case !info.Mode().IsRegular():
		return Skill{}, "", fmt.Errorf("%s is not a regular file (%s)", FileName, kind(info.Mode()))
	case info.Size() > MaxFileSize:
		return Skill{}, "", fmt.Errorf("%s is %d bytes, more than the %d allowed", FileName, info.Size(), MaxFileSize)
	}
	f, err := fsys.Open(file)
	if err != nil {
		return Skill{}, "", unwrapPath(err)
	}
	defer f.Close()
	// The limit guards against a file that grew since Lstat.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return Skill{}, "", unwrapPath(err)
	}
	if len(data) > MaxFileSize {
		return Skill{}, "", fmt.Errorf("%s is more than the %d bytes allowed", FileName, MaxFileSize)
	}
	s, err := Parse(string(data))
	if err != nil {
		return Skill{}, "", err
	}
	if s.Name != name {
		return Skill{}, "", fmt.Errorf("name %q does not match the folder name %q: rename one to match the other", s.Name, name)
	}
	s.Dir, s.Path = dir, path
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	return s, real, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a folder"
	}
	return "mode " + m.Type().String()
}

// unwrapPath drops the path from a *fs.PathError, since the Warning already
// names it.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
