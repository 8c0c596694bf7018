package memory

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// Scope keywords. A stored memory's scope is scopeGlobal or the absolute
// path of the served folder (the project) it belongs to.
const (
	scopeGlobal  = "global"
	scopeProject = "project"
	scopeAll     = "all"
)

// writeScope resolves the scope argument of remember: empty or "project"
// is the first served folder (global when none is served and the argument
// is empty), "global" is global, and a path is the served folder that
// contains it. It also says why, when the default fell back to global.
func writeScope(r *roots.Roots, arg string) (scope, note string, err error) {
	folders := r.List()
	switch kw := strings.ToLower(strings.TrimSpace(arg)); kw {
	case "":
		if len(folders) == 0 {
			return scopeGlobal, " (no folder is served, so the memory is global)", nil
		}
		return folders[0], "", nil
	case scopeProject:
		if len(folders) == 0 {
			return "", "", sdk.Failf(`scope "project" needs a served folder and none is served; use scope "global"`)
		}
		return folders[0], "", nil
	case scopeGlobal:
		return scopeGlobal, "", nil
	case scopeAll:
		return "", "", sdk.Failf(`scope "all" is for recall and list_memories; remember needs one scope: "project" (default), "global", or a served folder`)
	}
	abs, err := r.ResolveWrite(arg)
	if err != nil {
		if errors.Is(err, roots.ErrOutside) {
			return "", "", sdk.Failf(`scope %v; a memory belongs to a served folder, or use scope "global"`, err)
		}
		return "", "", sdk.Failf("scope: %v", err)
	}
	root, _ := r.Root(abs)
	return root, "", nil
}

// readScopes resolves the scope argument of recall and list_memories into
// a filter's scopes (nil for every scope) and a label for the output: empty
// is every served folder and global, "project" the served folders,
// "global" global, "all" every scope (other projects' included), and a
// path the served folder that contains it (or, where reads outside the
// served folders are allowed, the folder itself, as another project).
func readScopes(r *roots.Roots, arg string) (scopes []string, label string, err error) {
	folders := r.List()
	switch kw := strings.ToLower(strings.TrimSpace(arg)); kw {
	case "":
		if len(folders) == 0 {
			return []string{scopeGlobal}, "global (no folder is served)", nil
		}
		return append(folders, scopeGlobal), projectLabel(folders) + " and global", nil
	case scopeProject:
		if len(folders) == 0 {
			return nil, "", sdk.Failf(`scope "project" needs a served folder and none is served; use scope "global" or "all"`)
		}
		return folders, projectLabel(folders), nil
	case scopeGlobal:
		return []string{scopeGlobal}, "global", nil
	case scopeAll:
		return nil, "every scope", nil
	}
	abs, err := r.ResolveRead(arg)
	if err != nil {
		if errors.Is(err, roots.ErrOutside) {
			return nil, "", sdk.Failf(`scope %v; use "all" to include other projects' memories`, err)
		}
		return nil, "", sdk.Failf("scope: %v", err)
	}
	if root, ok := r.Root(abs); ok {
		abs = root
	}
	return []string{abs}, "project " + abs, nil
}

func projectLabel(folders []string) string {
	if len(folders) == 1 {
		return "project " + folders[0]
	}
	return fmt.Sprintf("projects %s", strings.Join(folders, ", "))
}
