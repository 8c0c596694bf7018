package scaffold

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// ModulePath is the module a Go plugin requires for the sdk.
const ModulePath = "github.com/ramabana/ramabana-mcp"

// GoVars are the go.mod template's SDK_VERSION and SDK_REPLACE for a new
// Go plugin, and a note saying where its sdk comes from. With sdkDir (a
// checkout of this module, --sdk) the plugin builds against it through a
// replace directive. Without, it requires the version this binary was
// built from when that is a published release; a development build, whose
// version no module proxy has, uses the checkout it was built from when
// that is still on disk, and otherwise asks for --sdk.
func GoVars(sdkDir string) (map[string]string, string, error) {
	if sdkDir == "" {
		if v := releaseVersion(); v != "" {
			return map[string]string{"SDK_VERSION": v, "SDK_REPLACE": ""}, "the sdk is " + ModulePath + " " + v, nil
		}
		sdkDir = builtFrom()
		if sdkDir == "" {
			return nil, "", fmt.Errorf("this ramabana-mcp is a development build, whose sdk version no module proxy has: pass --sdk DIR, a checkout of %s", ModulePath)
		}
	}
	abs, err := filepath.Abs(sdkDir)
	if err != nil {
		return nil, "", err
	}
	if got := modulePathOf(filepath.Join(abs, "go.mod")); got != ModulePath {
		return nil, "", fmt.Errorf("--sdk %s: not a checkout of %s (its go.mod says %q)", sdkDir, ModulePath, got)
	}
	return map[string]string{
		"SDK_VERSION": "v0.0.0-00010101000000-000000000000",
		"SDK_REPLACE": "\nreplace " + ModulePath + " => " + strconv.Quote(abs) + "\n", // go.mod's quoted string: a path with spaces too
	}, "the sdk is the checkout at " + abs + " (a replace directive in go.mod)", nil
}

// pseudoVersion ends every Go pseudo-version: a commit's time and hash.
var pseudoVersion = regexp.MustCompile(`\d{14}-[0-9a-f]{12}$`)

// releaseVersion is this binary's module version when it is a release a
// module proxy can serve: not a development build, a pseudo-version or a
// dirty tree.
func releaseVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok || info.Main.Path != ModulePath {
		return ""
	}
	v := info.Main.Version
	if v == "" || v == "(devel)" || strings.Contains(v, "+") || pseudoVersion.MatchString(v) {
		return ""
	}
	return v
}

// builtFrom is the checkout this binary was compiled from, when its
// sources are still where the compiler saw them (a build without
// -trimpath records them).
func builtFrom() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	dir := filepath.Dir(file) // …/host/internal/scaffold
	for range 4 {
		if modulePathOf(filepath.Join(dir, "go.mod")) == ModulePath {
			return dir
		}
		dir = filepath.Dir(dir)
	}
	return ""
}

// modulePathOf is the module line of a go.mod file, or "".
func modulePathOf(gomod string) string {
	f, err := os.Open(gomod)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}
