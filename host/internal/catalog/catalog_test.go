package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ramabana/ramabana-mcp/sdk"
)

type nopCaller struct{}

func (nopCaller) Call(context.Context, *sdk.Call, sdk.Events) (*sdk.Result, error) {
	return sdk.TextResult("ran"), nil
}

var obj = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":false}`)

func desc(plugin string, tools ...sdk.ToolSpec) *sdk.Description {
	return &sdk.Description{Name: plugin, Groups: []sdk.GroupSpec{{Name: plugin, Tools: tools}}}
}

func read(name string) sdk.ToolSpec {
	return sdk.ToolSpec{Name: name, Kind: sdk.KindRead, InputSchema: obj}
}

// TestAddIsAllOrNothing: a plugin whose description the validator refuses,
// or one of whose tools another plugin serves already, adds no tool at all.
func TestAddIsAllOrNothing(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		desc *sdk.Description
		want string
	}{
		"a tool without a kind": {desc("b", read("b_ok"), sdk.ToolSpec{Name: "mystery", InputSchema: obj}), `tool "mystery": declares no kind`},
		"a name already served": {desc("b", read("b_ok"), read("a_tool")), `tool "a_tool" is already served by plugin "a"`},
		"a bad plugin name":     {desc("B!", read("b_ok")), `plugin name "B!"`},
		"a mode on a non-skill": {desc("b", read("b_ok"), sdk.ToolSpec{Name: "m", Kind: sdk.KindRead, InputSchema: obj, Mode: sdk.SkillAuto}), "for skill tools only"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := New()
			if err := c.Add("a", ThirdParty, desc("a", read("a_tool")), nopCaller{}); err != nil {
				t.Fatal(err)
			}
			err := c.Add("b", ThirdParty, tc.desc, nopCaller{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Add = %v, want an error containing %q", err, tc.want)
			}
			if _, ok := c.Get("b_ok"); ok {
				t.Error("a refused plugin's other tool was added")
			}
			if got := len(c.All()); got != 1 {
				t.Errorf("catalog has %d entries, want the first plugin's 1", got)
			}
		})
	}
}

func TestRemoveCallerAndValidate(t *testing.T) {
	t.Parallel()
	c := New()
	a, b := &nopCaller{}, &struct{ nopCaller }{}
	if err := c.Add("a", ThirdParty, desc("a", read("a_tool")), a); err != nil {
		t.Fatal(err)
	}
	if err := c.Add("b", ThirdParty, desc("b", read("b_tool")), b); err != nil {
		t.Fatal(err)
	}
	e, _ := c.Get("a_tool")
	if err := e.Validate(json.RawMessage(`{"n":"x"}`)); err == nil || !strings.Contains(err.Error(), "invalid arguments for a_tool") {
		t.Errorf("Validate = %v, want the tool's invalid-arguments error", err)
	}
	if err := e.Validate(nil); err != nil {
		t.Errorf("absent arguments: %v", err)
	}
	c.RemoveCaller(a)
	if _, ok := c.Get("a_tool"); ok {
		t.Error("a_tool still there after its caller was removed")
	}
	if _, ok := c.Get("b_tool"); !ok {
		t.Error("b_tool removed with another caller")
	}
}

func TestPolicyMounted(t *testing.T) {
	t.Parallel()
	entry := func(group string, mode sdk.GroupMode, kind sdk.Kind) *Entry {
		return &Entry{Spec: sdk.ToolSpec{Name: "t", Kind: kind}, Group: group, GroupMode: mode}
	}
	open := true
	netEntry := &Entry{Spec: sdk.ToolSpec{Name: "fetch", Kind: sdk.KindRead, Annotations: sdk.Annotations{OpenWorld: &open}}, Group: "net"}
	for name, tc := range map[string]struct {
		p    Policy
		e    *Entry
		want string // "" means mounted
	}{
		"read tool":               {Policy{Web: true}, entry("files", sdk.ModeDefault, sdk.KindRead), ""},
		"write tool, read-only":   {Policy{Web: true}, entry("files", sdk.ModeDefault, sdk.KindWrite), "--write"},
		"write tool with --write": {Policy{Web: true, Write: true}, entry("files", sdk.ModeDefault, sdk.KindWrite), ""},
		"opt-in group not named":  {Policy{Web: true}, entry("exhash", sdk.ModeOptIn, sdk.KindRead), "--groups exhash"},
		"opt-in group named":      {Policy{Web: true, OptIn: map[string]bool{"exhash": true}}, entry("exhash", sdk.ModeOptIn, sdk.KindRead), ""},
		"group opted out":         {Policy{Web: true, OptOut: map[string]bool{"git": true}}, entry("git", sdk.ModeDefault, sdk.KindRead), "opted out"},
		"legacy with an agent":    {Policy{Web: true, Agent: true}, entry("old", sdk.ModeLegacy, sdk.KindRead), "legacy"},
		"network tool, no --web":  {Policy{}, netEntry, "--web"},
		// A group's name decides nothing: a third party's group called web
		// whose tools stay on this machine is served.
		"a group called web": {Policy{}, entry("web", sdk.ModeDefault, sdk.KindRead), ""},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ok, why := tc.p.Mounted(tc.e)
			if ok != (tc.want == "") || (tc.want != "" && !strings.Contains(why, tc.want)) {
				t.Errorf("Mounted = %v, %q; want mounted=%v with a reason containing %q", ok, why, tc.want == "", tc.want)
			}
		})
	}
}

// TestAnyGroupMounted: without the web, a plugin whose groups hold only
// open-world tools has nothing to serve, and one with any other tool has.
func TestAnyGroupMounted(t *testing.T) {
	t.Parallel()
	open := true
	netTool := sdk.ToolSpec{Name: "n", Kind: sdk.KindAct, Annotations: sdk.Annotations{OpenWorld: &open}}
	localTool := sdk.ToolSpec{Name: "l", Kind: sdk.KindRead}
	plugin := func(groups ...sdk.GroupSpec) *sdk.Description { return &sdk.Description{Name: "p", Groups: groups} }
	for name, tc := range map[string]struct {
		p    Policy
		d    *sdk.Description
		want bool
	}{
		"open-world only, web":    {Policy{Web: true}, plugin(sdk.GroupSpec{Name: "image", Tools: []sdk.ToolSpec{netTool}}), true},
		"open-world only, no web": {Policy{}, plugin(sdk.GroupSpec{Name: "image", Tools: []sdk.ToolSpec{netTool}}), false},
		"mixed group, no web":     {Policy{}, plugin(sdk.GroupSpec{Name: "mixed", Tools: []sdk.ToolSpec{netTool, localTool}}), true},
		"second group local":      {Policy{}, plugin(sdk.GroupSpec{Name: "a", Tools: []sdk.ToolSpec{netTool}}, sdk.GroupSpec{Name: "b", Tools: []sdk.ToolSpec{localTool}}), true},
		"a group called web":      {Policy{}, plugin(sdk.GroupSpec{Name: "web", Tools: []sdk.ToolSpec{localTool}}), true},
		"opted out":               {Policy{Web: true, OptOut: map[string]bool{"image": true}}, plugin(sdk.GroupSpec{Name: "image", Tools: []sdk.ToolSpec{netTool}}), false},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := tc.p.AnyGroupMounted(tc.d); got != tc.want {
				t.Errorf("AnyGroupMounted = %v, want %v", got, tc.want)
			}
		})
	}
}

// An upstream schema with references is left to the upstream server: one
// that refers to itself would otherwise make validation recurse until the
// stack overflows. One without is checked here.
func TestUpstreamEntryValidation(t *testing.T) {
	t.Parallel()
	cyclic := sdk.ToolSpec{Name: "w__loop", Kind: sdk.KindWrite,
		InputSchema: []byte(`{"type":"object","properties":{"a":{"$ref":"#/properties/a"}}}`)}
	if err := NewUpstreamEntry(cyclic, "w", "mcp:w", &Upstream{Server: "w"}, nil).Validate([]byte(`{"a":1}`)); err != nil {
		t.Errorf("cyclic schema: %v", err)
	}
	plain := sdk.ToolSpec{Name: "w__echo", Kind: sdk.KindRead,
		InputSchema: []byte(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)}
	if err := NewUpstreamEntry(plain, "w", "mcp:w", &Upstream{Server: "w"}, nil).Validate([]byte(`{}`)); err == nil {
		t.Error("a missing required argument passed")
	}
}

// namedCaller is a caller told from another by its name.
type namedCaller struct{ name string }

func (c *namedCaller) Call(context.Context, *sdk.Call, sdk.Events) (*sdk.Result, error) {
	return sdk.TextResult(c.name), nil
}

// TestSwapByACallerReplacedLeavesTheCatalog: a swap by a caller whose
// source another caller serves now (a plugin replaced by a reload, whose
// late description comes after) is refused with ErrReplaced and changes
// nothing; the serving caller's swap goes through.
func TestSwapByACallerReplacedLeavesTheCatalog(t *testing.T) {
	t.Parallel()
	old, current := &namedCaller{"old"}, &namedCaller{"current"}
	c := New()
	if err := c.Add("p", ThirdParty, desc("p", read("p_tool")), current); err != nil {
		t.Fatal(err)
	}
	err := c.Swap("p", ThirdParty, desc("p", read("p_other")), old)
	if !errors.Is(err, ErrReplaced) {
		t.Fatalf("Swap by the replaced caller = %v, want ErrReplaced", err)
	}
	if _, ok := c.Get("p_tool"); !ok {
		t.Error("the refused swap took the serving caller's tool away")
	}
	if _, ok := c.Get("p_other"); ok {
		t.Error("the refused swap added its tool")
	}
	if err := c.Swap("p", ThirdParty, desc("p", read("p_other")), current); err != nil {
		t.Fatalf("Swap by the serving caller = %v", err)
	}
	if _, ok := c.Get("p_other"); !ok {
		t.Error("the serving caller's swap did not take")
	}
}

// TestABundledGroupsSchemasCompileAtTheFirstCall: a third party's input
// schema that does not resolve refuses the plugin when it is added; a
// bundled group's is the binary's own, whose tests compile it, and is
// compiled at the tool's first call instead, where it fails the call.
func TestABundledGroupsSchemasCompileAtTheFirstCall(t *testing.T) {
	t.Parallel()
	dangling := sdk.ToolSpec{Name: "dangling", Kind: sdk.KindRead, InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"#/$defs/nothing"}}}`)}
	c := New()
	if err := c.Add("third", ThirdParty, desc("third", dangling), nopCaller{}); err == nil {
		t.Fatal("a third party's schema that does not resolve was added")
	}
	if err := c.Add("own", Bundled, desc("own", dangling, read("fine")), nopCaller{}); err != nil {
		t.Fatalf("a bundled group's description was refused: %v", err)
	}
	e, _ := c.Get("dangling")
	if err := e.Validate(json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), `tool "dangling"`) {
		t.Errorf("first call's Validate = %v, want the schema's compile error", err)
	}
	fine, _ := c.Get("fine")
	if err := fine.Validate(json.RawMessage(`{"n":"x"}`)); err == nil {
		t.Error("a bundled tool's arguments were not checked at its call")
	}
}

// TestServersAndGroupsOfOneName: in --groups, "mcp:ID" names the upstream
// server ID; a plain name is the built-in group when there is one of that
// name, and otherwise the server too. A malformed server name is refused.
func TestServersAndGroupsOfOneName(t *testing.T) {
	t.Parallel()
	builtin := map[string]bool{"git": true, "memory": true}
	upstreamTool := func(id string) *Entry {
		return NewUpstreamEntry(read(id+"__echo"), id, "mcp:"+id, &Upstream{Server: id}, nopCaller{})
	}
	bundledGit := &Entry{Spec: read("git_status"), Group: "git", From: Bundled}
	for _, tc := range []struct {
		groups                        []string
		bundledGit, serverGit, server bool // mounted: the bundled git group's tool, server git's, server other's
	}{
		{nil, true, true, true},
		{[]string{"-git"}, false, true, true},
		{[]string{"-mcp:git"}, true, false, true},
		{[]string{"-other"}, true, true, false},
		{[]string{"-mcp:other"}, true, true, false},
	} {
		optIn, optOut, err := ParseGroups(tc.groups)
		if err != nil {
			t.Fatalf("%v: %v", tc.groups, err)
		}
		p := Policy{OptIn: optIn, OptOut: optOut, Builtin: builtin, Web: true}
		for name, c := range map[string]struct {
			e    *Entry
			want bool
		}{"bundled git": {bundledGit, tc.bundledGit}, "server git": {upstreamTool("git"), tc.serverGit}, "server other": {upstreamTool("other"), tc.server}} {
			if ok, why := p.Mounted(c.e); ok != c.want {
				t.Errorf("--groups %v: %s mounted = %v (%s), want %v", tc.groups, name, ok, why, c.want)
			} else if !ok && !strings.Contains(why, "--groups") {
				t.Errorf("--groups %v: %s: reason %q does not name the flag", tc.groups, name, why)
			}
		}
	}
	for _, bad := range []string{"-mcp:", "mcp:Bad", "-mcp:a__b", "mcp:x_"} {
		if _, _, err := ParseGroups([]string{bad}); err == nil {
			t.Errorf("ParseGroups(%q) accepted", bad)
		}
	}
	if _, optOut, err := ParseGroups([]string{"-my_server"}); err != nil || !optOut["my_server"] {
		t.Errorf("a server id with '_' = %v, %v; want it opted out", optOut, err)
	}
}

// TestAllKeepsAServersOrder: All sorts groups by name and a group's tools
// by name, but an upstream server's tools keep the server's order, after
// a built-in group of the same name.
func TestAllKeepsAServersOrder(t *testing.T) {
	t.Parallel()
	c := New()
	if err := c.Add("git", Bundled, desc("git", read("git_status"), read("git_add")), nopCaller{}); err != nil {
		t.Fatal(err)
	}
	var ups []*Entry
	for i, name := range []string{"git__zeta", "git__alpha", "git__mid"} {
		ups = append(ups, NewUpstreamEntry(read(name), "git", "mcp:git", &Upstream{Server: "git", Order: i}, nopCaller{}))
	}
	if errs := c.Replace("mcp:git", ups); len(errs) > 0 {
		t.Fatal(errs)
	}
	var got []string
	for _, e := range c.All() {
		got = append(got, e.Spec.Name)
	}
	want := []string{"git_add", "git_status", "git__zeta", "git__alpha", "git__mid"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("All = %v, want %v", got, want)
	}
}

// legacyDesc is a legacy group forwarding to the groups in replacedBy.
func legacyDesc(replacedBy string, tools ...sdk.ToolSpec) *sdk.Description {
	return &sdk.Description{Name: "legacy", Groups: []sdk.GroupSpec{{Name: "legacy", Mode: sdk.ModeLegacy, ReplacedBy: replacedBy, Tools: tools}}}
}

// A legacy group's old name gives way to another plugin's tool of that
// name, whichever registers first; neither plugin is refused.
func TestLegacyNamesGiveWay(t *testing.T) {
	t.Parallel()
	for _, legacyFirst := range []bool{true, false} {
		c := New()
		add := func(plugin string, d *sdk.Description) {
			if err := c.Add(plugin, ThirdParty, d, nopCaller{}); err != nil {
				t.Fatalf("legacy first %v: add %s: %v", legacyFirst, plugin, err)
			}
		}
		if legacyFirst {
			add("legacy", legacyDesc("files", read("grep"), read("read_file")))
			add("acme", desc("acme", read("grep")))
		} else {
			add("acme", desc("acme", read("grep")))
			add("legacy", legacyDesc("files", read("grep"), read("read_file")))
		}
		if e, ok := c.Get("grep"); !ok || e.Plugin != "acme" {
			t.Errorf("legacy first %v: grep is served by %v; want acme's", legacyFirst, e)
		}
		if e, ok := c.Get("read_file"); !ok || e.Plugin != "legacy" {
			t.Errorf("legacy first %v: read_file is served by %v; want the legacy group's", legacyFirst, e)
		}
	}
}

// A legacy group is left out with a group it answers through.
func TestLegacyGroupFollowsWhatReplacedIt(t *testing.T) {
	t.Parallel()
	c := New()
	if err := c.Add("legacy", Bundled, legacyDesc("files,code", read("grep")), nopCaller{}); err != nil {
		t.Fatal(err)
	}
	e, _ := c.Get("grep")
	for _, tc := range []struct {
		optOut string
		want   bool
	}{{"", true}, {"code", false}, {"files", false}, {"git", true}} {
		p := Policy{OptOut: map[string]bool{tc.optOut: tc.optOut != ""}}
		ok, why := p.EntryGroupMounted(e)
		if ok != tc.want {
			t.Errorf("--groups -%s: mounted %v (%s); want %v", tc.optOut, ok, why, tc.want)
		}
		if !ok && !strings.Contains(why, "--groups -"+tc.optOut) {
			t.Errorf("--groups -%s: the reason %q does not name the flag", tc.optOut, why)
		}
	}
}
