package proctest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Build builds the main package pkg with go build and extra flags (such
// as -race) into the file dst, which must not exist (its folder is made
// if missing, as go build -o makes it). Call it before any test runs (in
// TestMain): dst is written by this process, and a process another
// goroutine starts meanwhile would hold dst open until it runs its own
// program, which makes running dst fail with "text file busy".
//
// Test binaries of one `go test ./...` run share what they build: pkg is
// built into a folder of the user's cache (sharedBuilds) and copied to
// dst from there. The go command relinks a binary there only when it is
// not up to date (its build ID, which hashes every input of the link,
// differs), so the second package that needs the server binary pays for a
// look at the build cache instead of the link of a 50 MB binary. A lock
// file serialises the builds and copies of one binary across test
// processes, and dst is the test's own copy: a later rebuild from other
// sources (another checkout) cannot change it under the test.
//
// Where the folder cannot be made, or the system has no file locks this
// package knows, Build builds straight to dst.
func Build(dst string, flags []string, pkg string) error {
	shared, err := sharedBuilds()
	if err != nil || !canLock {
		return goBuild(dst, flags, pkg)
	}
	// One file per package and flags: a -race build and a plain one live
	// side by side. A package named by a relative path is its folder.
	key := pkg
	if strings.HasPrefix(pkg, ".") {
		if key, err = filepath.Abs(pkg); err != nil {
			return err
		}
	}
	sum := sha256.Sum256([]byte(key + "\x00" + strings.Join(flags, "\x00")))
	target := filepath.Join(shared, filepath.Base(key)+"-"+hex.EncodeToString(sum[:8]))
	unlock, err := lockFile(target + ".lock")
	if err != nil {
		return fmt.Errorf("lock %s: %w", target, err)
	}
	defer unlock()
	// The link is written in a work folder beside target, so that go build
	// moves it into place with a rename: a copy across file systems (a
	// tmpfs /tmp) cut short by a kill would leave a truncated target that
	// go build, which reads only a binary's build ID, takes for up to date.
	if err := goBuild(target, flags, pkg, "GOTMPDIR="+filepath.Join(shared, "tmp")); err != nil {
		return err
	}
	// As go build -o would, dst's folder is made if missing.
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return CopyFile(target, dst, 0o755)
}

// SharedBuildsEnv names the variable that moves the shared builds'
// folder (by default ramabana-mcp-test-builds in the user's cache).
const SharedBuildsEnv = "RAMABANA_TEST_BUILDS"

// sharedBuilds is the folder the shared builds live in, made if missing:
// the user's own, not a folder of /tmp another user could have made.
// A relative folder is refused: each test binary runs in its own
// package's folder, so it would name a different one in each.
func sharedBuilds() (string, error) {
	dir := os.Getenv(SharedBuildsEnv)
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(cache, "ramabana-mcp-test-builds")
	}
	if !filepath.IsAbs(dir) {
		return "", fmt.Errorf("%s=%s is not an absolute path", SharedBuildsEnv, dir)
	}
	// tmp is go build's work folder (GOTMPDIR), on target's file system.
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o700); err != nil {
		return "", err
	}
	return dir, nil
}

// buildOutput, when set (by this package's tests), gets what each go
// build printed.
var buildOutput func([]byte)

// goBuild runs go build -o out with flags over pkg, with env added to
// its environment.
func goBuild(out string, flags []string, pkg string, env ...string) error {
	args := append(append([]string{"build"}, flags...), "-o", out, pkg)
	cmd := exec.Command("go", args...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	b, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	if buildOutput != nil {
		buildOutput(b)
	}
	return nil
}

// CopyFile copies the file src to dst, a new file with permissions perm:
// it fails when dst exists.
func CopyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
