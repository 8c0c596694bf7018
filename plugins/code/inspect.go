package code

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

//go:embed inspect.py
var inspectScript string

const (
	// inspectMarker precedes the helper's JSON on stdout, so that whatever
	// imported code prints cannot be mistaken for it.
	inspectMarker    = "\x00ramabana-inspect\x00"
	maxInspectStdout = 1 << 20
	maxInspectStderr = 64 << 10
)

type inspectArgs struct {
	Target string `json:"target" jsonschema:"dotted name, e.g. \"json.dumps\" or \"pkg.mod.Class.method\""`
	Cwd    string `json:"cwd,omitempty" jsonschema:"folder to run and import from, relative to the first served folder"`
}

var inspectSpec = sdk.ToolSpec{
	Name:  "inspect_python",
	Title: "Inspect a Python object",
	Kind:  sdk.KindAct,
	Annotations: sdk.Annotations{
		ReadOnly:    new(false),
		Destructive: new(false),
		Idempotent:  new(true),
		OpenWorld:   new(false),
	},
	Description: `Show a Python module, class or function as help() does (signature, source file, docstring, members), from the real interpreter. Importing runs a module's code, so project modules are imported only when the shell group is mounted.`,
}

var inspectSchema = sdk.LazySchemaFor[inspectArgs](func(p map[string]*jsonschema.Schema) {
	p["target"].MinLength = new(1)
	p["cwd"].Default = []byte(`"."`)
})

var dottedName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[\p{L}_][\p{L}\p{N}_]*(\.[\p{L}_][\p{L}\p{N}_]*)*$`)
})

// inspectResult is the helper's JSON.
type inspectResult struct {
	Error       string   `json:"error"`
	Message     string   `json:"message"`
	Module      string   `json:"module"`
	Owner       string   `json:"owner"`
	OwnerKind   string   `json:"owner_kind"`
	Name        string   `json:"name"`
	Suggestions []string `json:"suggestions"`

	Target        string   `json:"target"`
	Kind          string   `json:"kind"`
	Python        string   `json:"python"`
	Signature     *string  `json:"signature"`
	Doc           string   `json:"doc"`
	File          string   `json:"file"`
	Line          int      `json:"line"`
	EndLine       int      `json:"end_line"`
	Value         string   `json:"value"`
	Bases         []string `json:"bases"`
	Members       []string `json:"members"`
	MembersLeft   int      `json:"members_left"`
	Inherited     []string `json:"inherited"`
	InheritedLeft int      `json:"inherited_left"`
	ImportedOut   bool     `json:"imported_left_out"`
	HasAll        bool     `json:"has_all"`
}

// inspectTool declares inspect_python, which needs the host context's
// Commands beside the roots: importing a project module runs its code.
func (s *server) inspectTool() sdk.Tool {
	spec := inspectSpec
	spec.InputSchema = inspectSchema()
	return roots.HostTool(&s.roots, spec, func(ctx context.Context, r *roots.Roots, host sdk.Host, args inspectArgs) (*sdk.Result, error) {
		return s.inspectPython(ctx, r, host.Commands, args)
	})
}

// inspectPython imports target with python3. Importing a module runs its
// code, so the project's own modules are importable only when the host
// allows commands (the shell group is mounted); otherwise python3 runs
// isolated (-I -S: neither cwd, PYTHONPATH nor site's .pth files, which run
// code and add editable installs), and only the standard library and the
// installed packages outside the served folders import.
func (s *server) inspectPython(ctx context.Context, r *roots.Roots, commands bool, args inspectArgs) (*sdk.Result, error) {
	target := strings.TrimSpace(args.Target)
	if !dottedName().MatchString(target) {
		return nil, sdk.Failf("target %q is not a dotted Python name; give one such as \"json.dumps\" or \"mypkg.module.Class.method\" (no calls, brackets or spaces)", args.Target)
	}
	if args.Cwd == "" {
		args.Cwd = "."
	}
	cwdT, err := resolveRead(r, args.Cwd)
	if err != nil {
		return nil, err
	}
	// python3 gets the resolved path: a program, unlike this plugin's own
	// accesses, cannot be held to the root (the shell group's sandbox is
	// what confines programs).
	cwd := cwdT.Abs
	if !cwdT.Inside() {
		return nil, sdk.Failf("cwd %q is outside the served folders (%s); python3 runs only inside them", args.Cwd, strings.Join(r.List(), ", "))
	}
	if fi, err := cwdT.Stat(); err != nil || !fi.IsDir() {
		return nil, sdk.Failf("cwd %s is not a directory", display(r, cwd))
	}
	// Without commands, a python3 in a served folder (the project's .venv
	// on PATH) would read its pyvenv.cfg and standard library from the
	// repository: only one outside the served folders runs.
	pyArgs := []string{"-c", inspectScript, target, cwd}
	lookPath := exec.LookPath
	if !commands {
		served, err := json.Marshal(r.List())
		if err != nil {
			return nil, err
		}
		pyArgs = []string{"-I", "-S", "-c", inspectScript, target, "", string(served)}
		lookPath = r.LookPath
	}
	py, err := lookPath("python3")
	if err != nil {
		if _, anywhere := exec.LookPath("python3"); anywhere == nil {
			return nil, sdk.Failf("the python3 on PATH lies inside a served folder (or is a virtualenv there), so it would run the repository's code; without commands allowed (the shell group) inspect_python uses only a python3 outside the served folders, and there is none on PATH")
		}
		return nil, sdk.Failf("python3 not found on PATH; inspect_python needs a Python 3 interpreter")
	}

	ctx, cancel := context.WithTimeout(ctx, s.inspectTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, pyArgs...)
	cmd.Dir = cwd
	cmd.Env = append(sdk.ChildEnv(), "PYTHONDONTWRITEBYTECODE=1", "PYTHONIOENCODING=utf-8", "PYTHONUTF8=1")
	cmd.SysProcAttr = procAttr()
	cmd.Cancel = func() error { return killGroup(cmd.Process) }
	cmd.WaitDelay = 2 * time.Second
	stdout := &capped{max: maxInspectStdout}
	stderr := &capped{max: maxInspectStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	runErr := cmd.Run()
	// Whatever the helper started goes with it.
	if cmd.Process != nil {
		_ = killGroup(cmd.Process)
	}
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, sdk.Failf("python3 did not finish inspecting %s within %s and was killed; importing it may hang, wait for input or do heavy work at import time", target, s.inspectTimeout)
		}
		return nil, ctx.Err()
	}
	out := stdout.Bytes()
	i := bytes.LastIndex(out, []byte(inspectMarker))
	if i < 0 {
		msg := lastLines(stderr.String(), 5)
		if msg == "" && runErr != nil {
			msg = runErr.Error()
		}
		return nil, sdk.Failf("python3 exited without a result while inspecting %s: %s", target, msg)
	}
	var res inspectResult
	if err := json.Unmarshal(bytes.TrimSpace(out[i+len(inspectMarker):]), &res); err != nil {
		return nil, fmt.Errorf("read inspect_python helper output: %w", err)
	}
	if !commands && res.Error == "no_module" {
		return nil, sdk.Failf("no module %q can be imported (python3: %s); project modules are imported only when commands are allowed (the shell group is mounted, e.g. with --write), since importing runs their code: without it inspect_python sees the standard library and installed packages; use outline or find_symbol for project code", res.Module, res.Message)
	}
	return formatInspect(r, cwd, target, &res)
}

func formatInspect(r *roots.Roots, cwd, target string, res *inspectResult) (*sdk.Result, error) {
	switch res.Error {
	case "":
	case "no_module":
		return nil, sdk.Failf("no module %q can be imported from %s (python3: %s); check the spelling, or set cwd to the folder the package is imported from, or install it", res.Module, display(r, cwd), res.Message)
	case "import":
		return nil, sdk.Failf("importing %s failed: %s", res.Module, res.Message)
	case "attribute":
		msg := fmt.Sprintf("%s (a %s) has no attribute %q", res.Owner, res.OwnerKind, res.Name)
		if res.Message != "" {
			msg = fmt.Sprintf("getting %q from %s failed: %s", res.Name, res.Owner, res.Message)
		}
		if len(res.Suggestions) > 0 {
			msg += "; did you mean " + strings.Join(res.Suggestions, ", ") + "?"
		}
		return nil, sdk.Failf("%s", msg)
	default:
		return nil, sdk.Failf("inspecting %s failed: %s", target, res.Message)
	}

	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s (Python %s)\n", res.Target, res.Kind, res.Python)
	if res.Signature != nil {
		fmt.Fprintf(&b, "signature: %s\n", *res.Signature)
	}
	if len(res.Bases) > 0 {
		fmt.Fprintf(&b, "bases: %s\n", strings.Join(res.Bases, ", "))
	}
	if res.File != "" {
		src := res.File
		if abs, err := filepath.Abs(src); err == nil {
			if real, err := filepath.EvalSymlinks(abs); err == nil {
				abs = real
			}
			src = display(r, abs)
		}
		switch {
		case res.Line > 0 && res.EndLine > res.Line:
			src += fmt.Sprintf(":%d-%d", res.Line, res.EndLine)
		case res.Line > 0:
			src += fmt.Sprintf(":%d", res.Line)
		}
		fmt.Fprintf(&b, "source: %s\n", src)
	}
	if res.Value != "" {
		fmt.Fprintf(&b, "value: %s\n", res.Value)
	}
	if res.Doc != "" {
		b.WriteString("\n")
		b.WriteString(res.Doc)
		b.WriteString("\n")
	}
	writeList := func(title string, items []string, left int) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s:\n", title)
		for _, m := range items {
			b.WriteString("  ")
			b.WriteString(m)
			b.WriteByte('\n')
		}
		if left > 0 {
			fmt.Fprintf(&b, "  (%d more left out)\n", left)
		}
	}
	title := "members"
	if strings.HasPrefix(res.Kind, "module") || strings.HasPrefix(res.Kind, "package") {
		switch {
		case res.HasAll:
			title = "members (from __all__)"
		case res.ImportedOut:
			title = "members (names imported from other modules left out)"
		}
	}
	writeList(title, res.Members, res.MembersLeft)
	writeList("inherited", res.Inherited, res.InheritedLeft)
	return sdk.TextResult(strings.TrimSuffix(b.String(), "\n")), nil
}

// capped is a buffer that keeps the first max bytes written and drops the
// rest, so a chatty process cannot exhaust memory.
type capped struct {
	bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
