package git

import (
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// Config can name files for git to read, and git shows what it read: a
// blame.ignoreRevsFile naming ~/.git-credentials makes git blame fail with
// "invalid object name: https://user:TOKEN@host". Unless reads outside the
// served folders are allowed, a path from repository-controlled config
// (see controlled) that resolves outside them is replaced before git reads
// it; this holds with commands allowed too, since reading outside is a
// promise of its own.
//
// Values checked with git 2.39: each key below except blame.ignoreRevsFile
// keeps its last value, so /dev/null given on the command line (read
// last) replaces the repository's and reads nothing. blame.ignoreRevsFile
// accumulates, and config cannot empty the list (an empty value clears it
// only after the files before it were read), so git blame gets
// --no-ignore-revs-file, which drops every configured file before any is
// read, and then the allowed files again (guard.blame). An include can be
// neither replaced nor skipped: the call is refused.

// fileKeys name a file git reads, by full name in lower case.
var fileKeys = []string{
	"core.attributesfile",
	"core.excludesfile",
	"mailmap.file",
	"commit.template",
	"diff.orderfile",
	"gpg.ssh.allowedsignersfile",
	"gpg.ssh.revocationfile",
	"format.signaturefile",
}

const ignoreRevsKey = "blame.ignorerevsfile"

// isInclude says the key is include.path or includeIf.<cond>.path.
func isInclude(key string) bool {
	return key == "include.path" || strings.HasPrefix(key, "includeif.") && strings.HasSuffix(key, ".path")
}

// confineFiles refuses an include of a file outside r from repository-
// controlled config, and replaces every file key whose effective value
// comes from repository-controlled config and lies outside r.
func (g *guard) confineFiles(l layout, r *roots.Roots, entries []configEntry) error {
	for _, e := range entries {
		if !e.repo || !isInclude(e.key) || e.value == nil {
			continue
		}
		from := e.file(l.top)
		p, ok := configPath(*e.value, filepath.Dir(from))
		if !ok || !insideRoots(r, p) {
			return sdk.Failf("the git config %s includes %s (%s), outside the served folders (%s); git would read that file, so git tools refuse the repository. Remove the include, serve the folder that holds the file, or allow reads outside (--read-outside)",
				from, *e.value, e.key, strings.Join(r.List(), ", "))
		}
	}
	for _, key := range fileKeys {
		var last *configEntry
		for i := range entries {
			if entries[i].key == key {
				last = &entries[i]
			}
		}
		if last == nil || !last.repo || last.value == nil {
			continue
		}
		if p, ok := configPath(*last.value, l.top); !ok || !insideRoots(r, p) {
			g.set(key, os.DevNull)
		}
	}
	var keep []string
	outside := false
	for _, e := range entries {
		if e.key != ignoreRevsKey || e.value == nil {
			continue
		}
		p, ok := configPath(*e.value, l.top)
		switch {
		case *e.value == "":
			keep = append(keep, "")
		case e.repo && (!ok || !insideRoots(r, p)):
			outside = true
		case ok:
			keep = append(keep, p)
		}
	}
	if outside {
		// git keeps configured files sorted, once each.
		slices.Sort(keep)
		g.blame = []string{"--no-ignore-revs-file"}
		for _, p := range slices.Compact(keep) {
			g.blame = append(g.blame, "--ignore-revs-file="+p)
		}
	}
	return nil
}

// configPath resolves a path-valued config value as git does: "~/" and
// "~user/" expand to a home folder, a relative path is relative to base.
// It is false for a path it cannot place (git's install prefix
// "%(prefix)/", an unknown user), which is to be treated as outside.
func configPath(v, base string) (string, bool) {
	switch {
	case v == "~" || strings.HasPrefix(v, "~/"):
		home := os.Getenv("HOME")
		if home == "" {
			return "", false
		}
		return filepath.Join(home, v[1:]), true
	case strings.HasPrefix(v, "~"):
		name, rest, _ := strings.Cut(v[1:], "/")
		u, err := user.Lookup(name)
		if err != nil {
			return "", false
		}
		return filepath.Join(u.HomeDir, rest), true
	case strings.HasPrefix(v, "%(prefix)/"):
		return "", false
	case filepath.IsAbs(v):
		return filepath.Clean(v), true
	}
	return filepath.Join(base, v), true
}

// insideRoots says p, an absolute path that need not exist, resolves
// inside a served folder: its deepest existing ancestor, symlinks followed,
// is inside one.
func insideRoots(r *roots.Roots, p string) bool {
	_, err := r.ResolveWrite(p)
	return err == nil
}
