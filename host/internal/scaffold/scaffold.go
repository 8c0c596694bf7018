// Package scaffold writes a new plugin's folder: `ramabana-mcp plugin new
// --lang go|python|typescript NAME [DIR]`. Each language has a template
// (templates/<lang>: a hello plugin, its test and a README with the next
// commands) and, for the languages whose kit is not a Go module, the kit's
// own files, copied into the new folder so that the plugin builds with no
// registry of ours: the kit travels with the plugin, as the ramabana-mcp
// binary carries it.
//
// In a template, {{NAME}} is the plugin's name (word-count), {{IDENT}} the
// same as an identifier (word_count), and the Lang's Vars their values;
// file names take them too, and a trailing ".tmpl" is dropped (a Go
// template file must not be a Go file of this module). The folder is
// written beside its final place and renamed into it: a failed scaffold
// leaves nothing behind, and an existing folder is never written into.
package scaffold

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

//go:embed all:templates
var templates embed.FS

// Lang is what a language's plugin is made of.
type Lang struct {
	// Name is the --lang value: go, python or typescript.
	Name string
	// Kit is the kit's files, written into KitDir of the new folder; nil
	// for a language whose kit the toolchain fetches (Go's sdk).
	Kit    fs.FS
	KitDir string
	// Vars are the template's placeholders beyond NAME and IDENT, without
	// braces.
	Vars map[string]string
	// Exec are the written files (paths relative to the new folder) that
	// get the executable bit, beyond the *.sh files.
	Exec []string
	// Next are the commands that take the new plugin, in its folder, to
	// installed; {{NAME}} and {{IDENT}} are filled in.
	Next []string
}

// NextSteps are lang's Next for the plugin name.
func (lang Lang) NextSteps(name string) []string {
	vars := map[string]string{"NAME": name, "IDENT": strings.ReplaceAll(name, "-", "_")}
	out := make([]string, len(lang.Next))
	for i, c := range lang.Next {
		out[i] = fill(c, vars)
	}
	return out
}

// Langs are the --lang values, in the order usage lists them.
func Langs() []string {
	entries, _ := templates.ReadDir("templates")
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// CheckName says what is wrong with a plugin name, if anything: it is the
// binary's suffix (ramabana-plugin-NAME), the group's name and, with '-'
// as '_', an identifier in every language.
func CheckName(name string) error {
	if len(name) > 40 || !nameRE.MatchString(name) {
		return fmt.Errorf("plugin name %q: use lower-case letters and digits, words joined by single '-', starting with a letter (at most 40 characters), e.g. word-count", name)
	}
	return nil
}

// Write writes the plugin NAME of lang into dir, which must not exist or
// be an empty folder, and returns the files written, relative to dir and
// sorted. The files are written into a stage folder beside dir (so dir's
// parent must be writable) and then moved into place.
func Write(lang Lang, name, dir string) ([]string, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	tmplRoot := path.Join("templates", lang.Name)
	if _, err := fs.Stat(templates, tmplRoot); err != nil {
		return nil, fmt.Errorf("no template for %q: use %s", lang.Name, strings.Join(Langs(), ", "))
	}
	if fi, err := os.Lstat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("%s exists and is not a folder: choose a new folder", dir)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s exists and is not empty: choose a new folder", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, err
	}
	stage, err := os.MkdirTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".new-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stage) // gone once renamed; the leftovers of a failure otherwise
	vars := map[string]string{"NAME": name, "IDENT": strings.ReplaceAll(name, "-", "_")}
	for k, v := range lang.Vars {
		vars[k] = v
	}
	var written []string
	if err := copyTree(templates, tmplRoot, stage, "", vars, &written); err != nil {
		return nil, err
	}
	if lang.Kit != nil {
		if err := copyTree(lang.Kit, ".", stage, lang.KitDir, nil, &written); err != nil {
			return nil, fmt.Errorf("the %s kit: %w", lang.Name, err)
		}
	}
	for _, f := range written {
		if strings.HasSuffix(f, ".sh") || slices.Contains(lang.Exec, f) {
			if err := os.Chmod(filepath.Join(stage, f), 0o755); err != nil {
				return nil, err
			}
		}
	}
	if err := place(stage, abs); err != nil {
		return nil, err
	}
	sort.Strings(written)
	return written, nil
}

// place puts the staged folder at dir: renamed into place when dir does
// not exist, or, when it is an empty folder (the current one, say), its
// entries moved into it, so that dir stays the folder it is (a shell in
// it stays in it; its mode and owner stay). The stage is beside dir, on
// the same file system, so each move is a rename.
func place(stage, dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.Chmod(stage, 0o755); err != nil {
			return err
		}
		return os.Rename(stage, dir)
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s exists and is not a folder: choose a new folder", dir)
	}
	entries, err := os.ReadDir(stage)
	if err != nil {
		return err
	}
	for i, e := range entries {
		if err := os.Rename(filepath.Join(stage, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			for _, done := range entries[:i] { // nothing half-written: take back what was moved
				_ = os.RemoveAll(filepath.Join(dir, done.Name()))
			}
			return err
		}
	}
	return nil
}

// skipped are folders a template or kit may have grown on a developer's
// machine, which never belong in a new plugin.
var skipped = []string{"node_modules", "__pycache__", "dist", "build", ".pytest_cache"}

// copyTree copies the tree at root of src into sub of stage, replacing
// vars (when given) in names and contents, and appends what it wrote to
// written, relative to stage.
func copyTree(src fs.FS, root, stage, sub string, vars map[string]string, written *[]string) error {
	return fs.WalkDir(src, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := path.Join(sub, fill(strings.TrimPrefix(strings.TrimPrefix(p, root), "/"), vars))
		if d.IsDir() {
			if p != root && slices.Contains(skipped, d.Name()) {
				return fs.SkipDir
			}
			return os.MkdirAll(filepath.Join(stage, filepath.FromSlash(rel)), 0o755)
		}
		b, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		rel = strings.TrimSuffix(rel, ".tmpl")
		if vars != nil {
			b = []byte(fill(string(b), vars))
		}
		if err := os.WriteFile(filepath.Join(stage, filepath.FromSlash(rel)), b, 0o644); err != nil {
			return err
		}
		*written = append(*written, rel)
		return nil
	})
}

func fill(s string, vars map[string]string) string {
	for k, v := range vars {
		s = strings.ReplaceAll(s, "{{"+k+"}}", v)
	}
	return s
}
