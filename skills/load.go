package skills

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Root is a folder whose immediate subfolders are skill folders.
type Root struct {
	Dir    string
	Source Source
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
		entries, err := os.ReadDir(root.Dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				warnings = append(warnings, Warning{root.Dir, fmt.Sprintf("cannot list %s skills: %v", root.Source, unwrapPath(err))})
			}
			continue
		}
		for _, e := range entries {
			dir := filepath.Join(root.Dir, e.Name())
			if !e.IsDir() {
				if e.Type()&fs.ModeSymlink == 0 {
					continue
				}
				info, err := os.Stat(dir)
				if err != nil {
					warnings = append(warnings, Warning{dir, fmt.Sprintf("skipped: broken link: %v", unwrapPath(err))})
					continue
				}
				if !info.IsDir() {
					continue
				}
			}
			s, real, err := loadSkill(dir, e.Name())
			if err != nil {
				if !errors.Is(err, errNotSkill) {
					warnings = append(warnings, Warning{filepath.Join(dir, FileName), "skipped: " + err.Error()})
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

// loadSkill reads and validates dir/SKILL.md, whose folder is named name. It
// also returns the file's real path, to recognise one file reached twice.
func loadSkill(dir, name string) (Skill, string, error) {
	path := filepath.Join(dir, FileName)
	info, err := os.Lstat(path)
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
	f, err := os.Open(path)
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
