package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/host/internal/supervise"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// TestBundledGroupsInEveryPlace: a bundled group is in every place it
// needs, so that adding one and missing a place fails here: its folder
// under plugins/ (with tests of its own) and the table in bundled.go match
// one for one, every group a bundled plugin declares is described without
// error, and docs/configuration.md's table of bundled groups names each
// group and each of its tools in the column of the tool's kind.
func TestBundledGroupsInEveryPlace(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(filepath.Join("..", "plugins"))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "internal" {
			dirs = append(dirs, e.Name())
			tests, _ := filepath.Glob(filepath.Join("..", "plugins", e.Name(), "*_test.go"))
			if len(tests) == 0 {
				t.Errorf("plugins/%s has no tests", e.Name())
			}
		}
	}
	if diff := cmp.Diff(dirs, BundledNames()); diff != "" {
		t.Errorf("the folders under plugins/ (-) and the table in bundled.go (+) differ:\n%s", diff)
	}

	doc, err := os.ReadFile(filepath.Join("..", "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{} // group → its row's cells
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9-]+)`[^|]*((?:\\|[^|\\n]*)+)\\|\\s*$")
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		rows[m[1]] = strings.Split(strings.Trim(m[2], "|"), "|")
	}
	column := map[sdk.Kind]int{sdk.KindRead: 0, sdk.KindAct: 1, sdk.KindWrite: 2}
	for _, name := range BundledNames() {
		d, err := DescribeBundled(name, sdk.Host{})
		if err != nil {
			t.Errorf("describe %s: %v", name, err)
			continue
		}
		// The groups --groups is checked against without describing.
		var groups []string
		for _, g := range d.Groups {
			groups = append(groups, g.Name)
		}
		want, ok := declares[name]
		if !ok {
			want = []string{name}
		}
		if !slices.Equal(groups, want) {
			t.Errorf("%s declares groups %v; bundled.go's declares says %v", name, groups, want)
		}
		for _, g := range d.Groups {
			cells, ok := rows[g.Name]
			if !ok || len(cells) != 3 {
				t.Errorf("docs/configuration.md's table of bundled groups has no row for group %q (of plugin %s) with read, act and write columns", g.Name, name)
				continue
			}
			for _, tool := range g.Tools {
				if i, ok := column[tool.Kind]; !ok || !slices.Contains(toolNames(cells[i]), tool.Name) {
					t.Errorf("docs/configuration.md does not name %s (a %s tool of group %q) in the %s column", tool.Name, tool.Kind, g.Name, tool.Kind)
				}
			}
		}
	}
}

// toolNames are the `names` in a table cell.
func toolNames(cell string) []string {
	var out []string
	for _, m := range regexp.MustCompile("`([A-Za-z0-9_-]+)`").FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestBundledDescriptionsAreTheirProcesses: the host lists a bundled
// group's tools from its in-process description and starts its process at
// the first call; a process that described itself otherwise would have
// that call refused (supervise.Plugin.Call). So each bundled group's
// in-process description is the one it gives over the wire, with every
// host context that shapes a description, and every schema in it compiles.
func TestBundledDescriptionsAreTheirProcesses(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, name := range BundledNames() {
		for _, host := range []sdk.Host{
			{Roots: []string{root}},
			{Roots: []string{root}, Write: true, Commands: true},
			{Roots: []string{root}, Web: true, ReadOutside: true, NoSandbox: true},
		} {
			local, err := bundled[name]().Describe(context.Background(), host)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			// The host compiles a bundled group's schemas only at each
			// tool's first call (catalog): here every one is compiled.
			if err := local.Validate(); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			_, wire := sdktest.Connect(t, bundled[name](), host)
			if !supervise.SameDescription(local, wire) {
				t.Errorf("%s with %+v: the in-process description differs from the process's:\n%s", name, host, cmp.Diff(local, wire))
			}
		}
	}
}

// TestSchemasArePlainForEveryClient: every bundled tool's input schema
// gives each property one JSON type (optional, not null-able: the MCP
// Inspector warns on ["null", ...]), and says each top-level property's
// default and bounds in its description too, since Codex strips default,
// minimum, maximum, minLength, maxLength and format before its model sees
// the schema.
func TestSchemasArePlainForEveryClient(t *testing.T) {
	t.Parallel()
	var walk func(tool, path string, s map[string]any)
	walk = func(tool, path string, s map[string]any) {
		if _, many := s["type"].([]any); many {
			t.Errorf("%s: %s has several types %v", tool, path, s["type"])
		}
		if props, ok := s["properties"].(map[string]any); ok {
			for name, p := range props {
				if ps, ok := p.(map[string]any); ok {
					walk(tool, path+"."+name, ps)
				}
			}
		}
		if items, ok := s["items"].(map[string]any); ok {
			walk(tool, path+"[]", items)
		}
	}
	for _, name := range BundledNames() {
		d, err := bundled[name]().Describe(context.Background(), sdk.Host{})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range d.Groups {
			for _, tool := range g.Tools {
				var s map[string]any
				if err := json.Unmarshal(tool.InputSchema, &s); err != nil {
					t.Fatalf("%s: %v", tool.Name, err)
				}
				walk(tool.Name, "input", s)
				props, _ := s["properties"].(map[string]any)
				for pname, p := range props {
					ps, _ := p.(map[string]any)
					desc, _ := ps["description"].(string)
					if def, ok := ps["default"]; ok && def != false {
						b, _ := json.Marshal(def)
						if !strings.Contains(desc, string(b)) {
							t.Errorf("%s: %s has default %s that its description %q does not say", tool.Name, pname, b, desc)
						}
					}
					for _, kw := range []string{"minimum", "maximum"} {
						if v, ok := ps[kw].(float64); ok && !strings.Contains(desc, strconv.FormatFloat(v, 'g', -1, 64)) {
							t.Errorf("%s: %s has %s %v that its description %q does not say", tool.Name, pname, kw, v, desc)
						}
					}
				}
			}
		}
	}
}
