package git_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ramabana/ramabana-mcp/internal/proctest"
)

// Most tests start from a repository whose history is the same every
// time. Building one takes a dozen git processes, and a process costs
// milliseconds, so each such repository is built once per test binary, as a
// template, and every test gets a copy of its own (see repoTemplate.copyTo):
// a real repository, made by git, that the test may change at will.

var (
	// templatesDir holds the templates; TestMain makes and removes it.
	templatesDir string
	// baseEnv is the environment TestMain gives git. Templates are built
	// with it whatever a test has set since (t.Setenv of HOME or
	// GIT_CONFIG_GLOBAL), so that a template is the same whichever test
	// builds it first.
	baseEnv []string
)

// repoTemplate is a repository built once, on first use, and copied.
type repoTemplate struct {
	name string
	// build makes the repository in b.dir, which exists and is empty.
	build func(b *builder)

	once sync.Once
	dir  string
	vals map[string]string
	err  error
}

// builder runs a template's setup; the first error stops it.
type builder struct {
	dir  string
	vals map[string]string // what the template records (hashes) for its tests
	err  error
}

// gitEnvIn runs git in the template with extra environment entries
// (KEY=VALUE) and stdin, and returns its trimmed output.
func (b *builder) gitEnvIn(extra []string, stdin string, args ...string) string {
	if b.err != nil {
		return ""
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = b.dir
	cmd.Env = append(append([]string(nil), baseEnv...), extra...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.err = fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		return ""
	}
	return strings.TrimSpace(string(out))
}

func (b *builder) git(args ...string) string { return b.gitEnvIn(nil, "", args...) }

// write writes files (name → content, slash-separated names) into the
// template.
func (b *builder) write(files map[string]string) {
	for name, content := range files {
		if b.err != nil {
			return
		}
		p := filepath.Join(b.dir, filepath.FromSlash(name))
		if b.err = os.MkdirAll(filepath.Dir(p), 0o755); b.err == nil {
			b.err = os.WriteFile(p, []byte(content), 0o644)
		}
	}
}

// commit is env.commit for a template: it writes files, stages everything
// and commits, and returns the short hash.
func (b *builder) commit(msg string, files map[string]string) string {
	b.write(files)
	b.git("add", "-A")
	b.git("commit", "-q", "--allow-empty", "-m", msg)
	return b.git("rev-parse", "--short=7", "HEAD")
}

// get builds the template the first time it is asked for, and returns its
// folder and what it recorded.
func (tp *repoTemplate) get(t *testing.T) (string, map[string]string) {
	t.Helper()
	tp.once.Do(func() {
		if templatesDir == "" {
			tp.err = errors.New("no templates folder: TestMain did not run")
			return
		}
		b := &builder{dir: filepath.Join(templatesDir, tp.name), vals: map[string]string{}}
		if b.err = os.Mkdir(b.dir, 0o755); b.err == nil {
			tp.build(b)
		}
		tp.dir, tp.vals, tp.err = b.dir, b.vals, b.err
	})
	if tp.err != nil {
		t.Fatalf("template repository %s: %v", tp.name, tp.err)
	}
	return tp.dir, tp.vals
}

// copyTo copies the template into dst (made if missing), as cp -a would.
// A copy's files have new inodes and change times, which the index
// records: when the template has an index, git update-index --refresh
// brings it up to date in the copy, so that the copy's work tree is clean
// to git as a repository built in place would be, and a test that wants git
// to read a file again must touch it, as before.
func (tp *repoTemplate) copyTo(t *testing.T, dst string) {
	t.Helper()
	src, _ := tp.get(t)
	if err := copyTree(src, dst); err != nil {
		t.Fatalf("copy template %s: %v", tp.name, err)
	}
	if _, err := os.Stat(filepath.Join(dst, ".git", "index")); err == nil {
		gitT(t, dst, "update-index", "-q", "--refresh")
	}
}

// copyTree copies the folders, files (with their modes and modification
// times) and symbolic links under src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm())
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			if err := proctest.CopyFile(p, target, info.Mode().Perm()); err != nil {
				return err
			}
			return os.Chtimes(target, info.ModTime(), info.ModTime())
		default:
			return fmt.Errorf("%s: cannot copy a file of type %s", p, d.Type())
		}
	})
}

// The templates.
var (
	// emptyRepo is git init -b main, and identityRepo the same with
	// user.name and user.email set: what newEnv starts from.
	emptyRepo    = &repoTemplate{name: "empty", build: func(b *builder) { b.git("init", "-q", "-b", "main") }}
	identityRepo = &repoTemplate{name: "identity", build: func(b *builder) {
		b.git("init", "-q", "-b", "main")
		b.git("config", "user.name", "Ada Lovelace")
		b.git("config", "user.email", "ada@example.com")
	}}
)
