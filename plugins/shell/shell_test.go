package shell_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/plugins/shell"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// env is a served folder with the shell plugin connected over gRPC.
type env struct {
	root string
	g    sdk.Group
}

func newEnv(t *testing.T) *env {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "root")
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "file.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "outside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "outside"), filepath.Join(root, "out-link")); err != nil {
		t.Fatal(err)
	}
	g, _ := sdktest.Connect(t, shell.New(), sdk.Host{Roots: []string{root}})
	return &env{root: root, g: g}
}

func (e *env) run(t *testing.T, args map[string]any) *sdk.Result {
	t.Helper()
	return sdktest.Call(t, e.g, "run_command", args)
}

// tookRe matches the varying duration in a status line.
var tookRe = regexp.MustCompile(`\b(in|after) \d+\.\ds\b`)

func normalize(s string) string { return tookRe.ReplaceAllString(s, "$1 T") }

func TestRunCommand(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := map[string]struct {
		args    map[string]any
		want    string // the result text, durations normalised
		wantErr string // the whole text of an error result
	}{
		"stdout and stderr": {
			args: map[string]any{"command": "echo out; echo err >&2; echo more"},
			want: "exit 0 in T\n--- stdout ---\nout\nmore\n--- stderr ---\nerr",
		},
		"stderr only": {
			args: map[string]any{"command": "echo err >&2"},
			want: "exit 0 in T\n--- stderr ---\nerr",
		},
		"non-zero exit is not an error": {
			args: map[string]any{"command": "echo oops >&2; exit 3"},
			want: "exit 3 in T (non-zero exit status: the command failed)\n--- stderr ---\noops",
		},
		"killed by a signal": {
			// In its pid namespace the shell is init, which ignores its own
			// signals; a fault's signal is forced.
			args: map[string]any{"command": `exec python3 -c "import ctypes; ctypes.string_at(0)"`},
			want: "killed by SIGSEGV (signal 11) in T\n(no output)",
		},
		"no output": {
			args: map[string]any{"command": "true"},
			want: "exit 0 in T\n(no output)",
		},
		"shell syntax": {
			args: map[string]any{"command": "for i in 1 2 3; do printf '%s,' \"$i\"; done | tr , ' ' && echo"},
			want: "exit 0 in T\n--- stdout ---\n1 2 3 ",
		},
		"stdin is empty": {
			args: map[string]any{"command": "cat; read -r line; echo \"read exit $?\""},
			want: "exit 0 in T\n--- stdout ---\nread exit 1",
		},
		"env is added": {
			args: map[string]any{"command": `printf '%s|%s' "$GREETING" "$_X1"`, "env": map[string]string{"GREETING": "hello world", "_X1": "a=b"}},
			want: "exit 0 in T\n--- stdout ---\nhello world|a=b",
		},
		"env overrides": {
			args: map[string]any{"command": `echo "$HOME"`, "env": map[string]string{"HOME": "/nowhere"}},
			want: "exit 0 in T\n--- stdout ---\n/nowhere",
		},
		"default cwd is the first root": {
			args: map[string]any{"command": "pwd -P"},
			want: "exit 0 in T\n--- stdout ---\n" + e.root,
		},
		"relative cwd": {
			args: map[string]any{"command": "pwd -P", "cwd": "sub"},
			want: "exit 0 in T\n--- stdout ---\n" + filepath.Join(e.root, "sub"),
		},
		"absolute cwd inside": {
			args: map[string]any{"command": "pwd -P", "cwd": filepath.Join(e.root, "sub")},
			want: "exit 0 in T\n--- stdout ---\n" + filepath.Join(e.root, "sub"),
		},
		"cwd outside": {
			args:    map[string]any{"command": "pwd", "cwd": ".."},
			wantErr: `cwd: path ".." is outside the served folders (` + e.root + `); commands run only inside the served folders`,
		},
		"cwd absolute outside": {
			args:    map[string]any{"command": "pwd", "cwd": "/"},
			wantErr: `cwd: path "/" is outside the served folders (` + e.root + `); commands run only inside the served folders`,
		},
		"cwd through a symlink": {
			args: map[string]any{"command": "pwd", "cwd": "out-link"},
			wantErr: `cwd: path "out-link" is outside the served folders (` + e.root + `); it resolves to "` + filepath.Join(filepath.Dir(e.root), "outside") +
				`" through a symlink; commands run only inside the served folders`,
		},
		"cwd missing": {
			args:    map[string]any{"command": "pwd", "cwd": "nope"},
			wantErr: `cwd "nope" does not exist; create it first (mkdir -p within a command run from a parent folder) or pick another`,
		},
		"cwd is a file":           {args: map[string]any{"command": "pwd", "cwd": "file.txt"}, wantErr: `cwd "file.txt" is a file, not a directory`},
		"empty command":           {args: map[string]any{"command": "  "}, wantErr: `command is empty; give a bash command line such as "go test ./..."`},
		"command with a NUL byte": {args: map[string]any{"command": "echo a\x00b"}, wantErr: "command contains a NUL byte, which bash cannot take"},
		"env value with NUL":      {args: map[string]any{"command": "true", "env": map[string]string{"X": "a\x00b"}}, wantErr: "env: the value of X contains a NUL byte"},
		// The input schema rejects these before the plugin sees them (the
		// plugin checks them again for a caller that does not validate):
		// what a client gets is the host's message.
		"bad env name": {
			args:    map[string]any{"command": "true", "env": map[string]string{"1X": "v"}},
			wantErr: `invalid arguments for run_command: the name "1X" in "env" must match the pattern "^[A-Za-z_][A-Za-z0-9_]*$" (got "1X")`,
		},
		"timeout too long":       {args: map[string]any{"command": "true", "timeout_seconds": 1801}, wantErr: `invalid arguments for run_command: "timeout_seconds" must be at most 1800 (got 1801)`},
		"negative timeout":       {args: map[string]any{"command": "true", "timeout_seconds": -1}, wantErr: `invalid arguments for run_command: "timeout_seconds" must be at least 1 (got -1)`},
		"output limit too large": {args: map[string]any{"command": "true", "limit": 2 << 20}, wantErr: `invalid arguments for run_command: "limit" must be at most 1048576 (got 2097152)`},
		"output limit too small": {args: map[string]any{"command": "true", "limit": 10}, wantErr: `invalid arguments for run_command: "limit" must be at least 256 (got 10)`},
		"unknown argument":       {args: map[string]any{"command": "true", "shell": "zsh"}, wantErr: `invalid arguments for run_command: unknown argument "shell"; run_command takes: command, cwd, timeout_seconds, limit, env`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res := e.run(t, tc.args)
			if tc.wantErr != "" {
				if !res.IsError || res.Text() != tc.wantErr {
					t.Fatalf("got error=%t %q, want the error %q", res.IsError, res.Text(), tc.wantErr)
				}
				return
			}
			if res.IsError {
				t.Fatalf("error result: %s", res.Text())
			}
			if diff := cmp.Diff(tc.want, normalize(res.Text())); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestNoRoots(t *testing.T) {
	t.Parallel()
	g, _ := sdktest.Connect(t, shell.New(), sdk.Host{})
	res := sdktest.Call(t, g, "run_command", map[string]any{"command": "true"})
	if !res.IsError || !strings.Contains(res.Text(), "no folders are served") {
		t.Errorf("got error=%t %q", res.IsError, res.Text())
	}
}

// section returns the body of a "--- name ..." section of a result.
func section(text, name string) string {
	i := strings.Index(text, "\n--- "+name)
	if i < 0 {
		return ""
	}
	body := text[i+1:]
	body = body[strings.IndexByte(body, '\n')+1:]
	if j := strings.Index(body, "\n--- "); j >= 0 {
		body = body[:j+1]
	}
	return body
}

func TestOutputCap(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var all strings.Builder
	for i := 1; i <= 20000; i++ {
		all.WriteString(strings.Repeat("x", i%7) + "\n")
	}
	total := all.Len()
	res := e.run(t, map[string]any{
		"command":         `s=xxxxxx; for ((i = 1; i <= 20000; i++)); do printf '%s\n' "${s:0:i%7}"; done; echo tail-of-stderr >&2`,
		"limit":           1000,
		"timeout_seconds": 600,
	})
	if res.IsError {
		t.Fatalf("error result: %s", res.Text())
	}
	text := res.Text()
	out := section(text, "stdout")
	noteRe := regexp.MustCompile(`(?m)^\[\.\.\. (\d+) bytes cut \.\.\.\]\n`)
	m := noteRe.FindStringSubmatchIndex(out)
	if m == nil {
		t.Fatalf("no cut note in stdout:\n%s", text)
	}
	head, tail := out[:m[0]], out[m[1]:]
	if !strings.HasPrefix(all.String(), head) || !strings.HasSuffix(all.String(), tail) {
		t.Errorf("head %q or tail %q is not from the output", head, tail)
	}
	if len(head) > 600 || len(tail) > 400 || len(head) < 500 || len(tail) < 300 {
		t.Errorf("kept %d + %d bytes, want about 600 + 400", len(head), len(tail))
	}
	header := regexp.MustCompile(`--- stdout \((\d+) bytes in all; the first (\d+) and the last (\d+) shown\) ---`).FindStringSubmatch(text)
	wantHeader := []string{strconv.Itoa(total), strconv.Itoa(len(head)), strconv.Itoa(len(tail))}
	if header == nil || !cmp.Equal(header[1:], wantHeader) {
		t.Errorf("header %q, want numbers %v", header, wantHeader)
	}
	if got, want := out[m[2]:m[3]], strconv.Itoa(total-len(head)-len(tail)); got != want {
		t.Errorf("note says %s bytes cut, want %s", got, want)
	}
	if got := section(text, "stderr"); got != "tail-of-stderr" {
		t.Errorf("stderr section %q, want it whole", got)
	}
}

// recorder records the progress events of a call.
type recorder struct {
	mu       sync.Mutex
	progress []float64
	messages []string
}

func (r *recorder) Progress(progress, _ float64, message string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.progress = append(r.progress, progress)
	r.messages = append(r.messages, message)
}

func (r *recorder) Log(sdk.LogLevel, string) {}

func TestProgress(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	args, _ := json.Marshal(map[string]any{"command": "echo started; sleep 2.5"})
	rec := &recorder{}
	res, err := e.g.Call(context.Background(), &sdk.Call{Tool: "run_command", Arguments: args}, rec)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("error result: %s", res.Text())
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.messages) < 2 {
		t.Fatalf("got %d progress events (%q), want one a second", len(rec.messages), rec.messages)
	}
	msgRe := regexp.MustCompile(`^running \d+s, 8 B output$`)
	for i, msg := range rec.messages {
		if !msgRe.MatchString(msg) {
			t.Errorf("progress message %q does not match %s", msg, msgRe)
		}
		if i > 0 && rec.progress[i] <= rec.progress[i-1] {
			t.Errorf("progress %v does not increase", rec.progress)
		}
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	_, d := sdktest.Connect(t, shell.New(), sdk.Host{})
	if len(d.Groups) != 1 || d.Groups[0].Name != "shell" || d.Groups[0].Mode != sdk.ModeDefault || len(d.Groups[0].Tools) != 1 {
		t.Fatalf("groups: %+v", d.Groups)
	}
	spec := d.Groups[0].Tools[0]
	got := []any{spec.Name, spec.Kind, spec.Hints(), spec.EffectiveTask()}
	want := []any{"run_command", sdk.KindWrite, sdk.Hints{Destructive: true}, sdk.TaskCompletion}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
	var schema struct {
		Type       string   `json:"type"`
		Required   []string `json:"required"`
		Properties map[string]struct {
			Default any      `json:"default"`
			Minimum *float64 `json:"minimum"`
			Maximum *float64 `json:"maximum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(spec.InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	p := schema.Properties
	gotSchema := []any{schema.Type, schema.Required, p["timeout_seconds"].Default, *p["timeout_seconds"].Maximum, p["limit"].Default, *p["limit"].Maximum}
	wantSchema := []any{"object", []string{"command"}, 120.0, 1800.0, 65536.0, 1048576.0}
	if diff := cmp.Diff(wantSchema, gotSchema); diff != "" {
		t.Errorf("schema (-want +got):\n%s", diff)
	}
	if !strings.Contains(spec.Description, "/bin/bash -c") {
		t.Errorf("description does not say it is a bash command line")
	}
}
