package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// The tool list is read by the client's model before every task, so its
// size is a cost paid on every conversation. These bounds keep it lean:
// a tool says what it does, what it returns and its one or two rules, and
// leaves defaults and bounds to its schema, and to the short clause each
// property's description ends with for clients that strip those keywords
// (sdk.SaysBounds: "(default 200, 1 to 1000)"), which a tool with many
// parameters pays for in maxToolJSON.
const (
	// maxDescription bounds one tool's description, in bytes.
	maxDescription = 600
	// maxToolJSON bounds one tool as tools/list sends it: name, title,
	// description, schemas, annotations and _meta.
	maxToolJSON = 1800
	// maxReadOnlyAverage bounds the read-only list, in bytes a tool.
	maxReadOnlyAverage = 1024
)

// Every bundled group's tools, mounted or not, keep their descriptions
// within maxDescription.
func TestBundledToolDescriptionsStayShort(t *testing.T) {
	t.Parallel()
	n := 0
	for _, group := range host.BundledNames() {
		d, err := host.DescribeBundled(group, sdk.Host{})
		if err != nil {
			t.Fatalf("describe %s: %v", group, err)
		}
		for _, g := range d.Groups {
			for _, s := range g.Tools {
				n++
				if len(s.Description) > maxDescription {
					t.Errorf("%s (group %s): description of %d bytes, over the %d allowed: say what it does, what it returns and its one or two rules; leave defaults and bounds to the schema",
						s.Name, g.Name, len(s.Description), maxDescription)
				}
			}
		}
	}
	if n < 30 {
		t.Errorf("%d bundled tools described; want every bundled group's", n)
	}
}

// toolSize is one listed tool and its bytes on the wire.
type toolSize struct {
	name  string
	bytes int
	desc  int
}

// listSizes lists cs's tools as tools/list sends them, largest first, and
// their total bytes.
func listSizes(t *testing.T, cs *mcp.ClientSession) ([]toolSize, int) {
	t.Helper()
	var sizes []toolSize
	total := 0
	for _, tool := range tools(t, cs) {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // as the wire has it: "<hash>", not "\u003chash\u003e"
		if err := enc.Encode(tool); err != nil {
			t.Fatal(err)
		}
		n := len(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
		sizes = append(sizes, toolSize{tool.Name, n, len(tool.Description)})
		total += n
	}
	slices.SortFunc(sizes, func(a, b toolSize) int { return b.bytes - a.bytes })
	return sizes, total
}

// The whole tool list stays small: the read-only one under
// maxReadOnlyAverage bytes a tool, and every tool, host tools included,
// within maxToolJSON and maxDescription. The figures are logged (go test
// -v -run TestToolListSize) for both lists.
func TestToolListSize(t *testing.T) {
	t.Parallel()
	root := project(t)
	for name, tc := range map[string]struct {
		args       []string
		maxAverage int // 0: not bounded
	}{
		"read-only":               {maxAverage: maxReadOnlyAverage},
		"--write --groups exhash": {args: []string{"--write", "--groups", "exhash"}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := startStdio(t, root, tc.args...)
			sizes, total := listSizes(t, s.session)
			if len(sizes) == 0 {
				t.Fatal("no tools listed")
			}
			avg := total / len(sizes)
			var top []string
			for _, ts := range sizes[:min(5, len(sizes))] {
				top = append(top, fmt.Sprintf("%s %d", ts.name, ts.bytes))
			}
			t.Logf("%s: %d tools, %d bytes, %d B/tool; largest: %s", name, len(sizes), total, avg, strings.Join(top, ", "))
			if tc.maxAverage > 0 && avg > tc.maxAverage {
				t.Errorf("%s tool list averages %d bytes a tool, over the %d allowed", name, avg, tc.maxAverage)
			}
			for _, ts := range sizes {
				if ts.bytes > maxToolJSON {
					t.Errorf("%s is %d bytes in tools/list, over the %d allowed", ts.name, ts.bytes, maxToolJSON)
				}
				if ts.desc > maxDescription {
					t.Errorf("%s: description of %d bytes, over the %d allowed", ts.name, ts.desc, maxDescription)
				}
			}
		})
	}
}
