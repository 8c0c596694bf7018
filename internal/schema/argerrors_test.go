package schema_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/internal/schema"
	"github.com/ramabana/ramabana-mcp/plugins/files"
	"github.com/ramabana/ramabana-mcp/plugins/shell"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// bundledSpecs are the real specs of some bundled tools, by name.
func bundledSpecs(t *testing.T) map[string]sdk.ToolSpec {
	t.Helper()
	specs := map[string]sdk.ToolSpec{}
	for _, g := range []sdk.Group{files.New(), shell.New()} {
		d, err := g.Describe(context.Background(), sdk.Host{})
		if err != nil {
			t.Fatal(err)
		}
		for _, gr := range d.Groups {
			for _, tl := range gr.Tools {
				specs[tl.Name] = tl
			}
		}
	}
	specs["pick"] = sdk.ToolSpec{Name: "pick", Kind: sdk.KindRead, InputSchema: json.RawMessage(`{"type":"object",` +
		`"properties":{"mode":{"type":"string","enum":["a","b"]},"ids":{"type":"array","items":{"type":"integer","minimum":0},"minItems":1,"maxItems":2},` +
		`"either":{"anyOf":[{"type":"string"},{"type":"integer"}]}},"additionalProperties":false}`)}
	return specs
}

// TestArgumentErrorsInWords: each mistake a model makes with a tool's
// arguments is said in words: which argument, what was wrong, what was
// expected, and for an unknown or missing one what the tool takes.
func TestArgumentErrorsInWords(t *testing.T) {
	t.Parallel()
	specs := bundledSpecs(t)
	for name, tc := range map[string]struct {
		tool, args, want string
	}{
		"below minimum":      {"view_file", `{"path":"a","start":0}`, `invalid arguments for view_file: "start" must be at least 1 (got 0)`},
		"required":           {"view_file", `{}`, `invalid arguments for view_file: "path" is required; view_file takes: path, start, column, limit`},
		"null arguments":     {"view_file", `null`, `invalid arguments for view_file: "path" is required; view_file takes: path, start, column, limit`},
		"null for a string":  {"view_file", `{"path":null}`, `invalid arguments for view_file: "path" must be a string, got null`},
		"string for integer": {"view_file", `{"path":"a","start":"5"}`, `invalid arguments for view_file: "start" must be an integer, got "5"`},
		"fraction":           {"view_file", `{"path":"a","limit":1.5}`, `invalid arguments for view_file: "limit" must be an integer, got 1.5`},
		"synonym":            {"view_file", `{"file":"a"}`, `invalid arguments for view_file: unknown argument "file"; did you mean "path"? view_file takes: path, start, column, limit`},
		"misspelt":           {"view_file", `{"path":"a","strat":2}`, `invalid arguments for view_file: unknown argument "strat"; did you mean "start"? view_file takes: path, start, column, limit`},
		"plural":             {"view_file", `{"path":"a","limits":2}`, `invalid arguments for view_file: unknown argument "limits"; did you mean "limit"? view_file takes: path, start, column, limit`},
		"camel case":         {"run_command", `{"command":"true","timeoutSeconds":5}`, `invalid arguments for run_command: unknown argument "timeoutSeconds"; did you mean "timeout_seconds"? run_command takes: command, cwd, timeout_seconds, limit, env`},
		"nothing near":       {"view_file", `{"path":"a","offset":3}`, `invalid arguments for view_file: unknown argument "offset"; view_file takes: path, start, column, limit`},
		"several":            {"view_file", `{"path":"a","start":"5","limit":-1,"x":1}`, `invalid arguments for view_file: "start" must be an integer, got "5"; "limit" must be at least 1 (got -1); unknown argument "x"; view_file takes: path, start, column, limit`},
		"too many":           {"edit_file", `{"a":1,"b":1,"c":1,"d":1}`, `invalid arguments for edit_file: unknown argument "a"; unknown argument "b"; unknown argument "c"; and 3 more; edit_file takes: path, edits`},
		"nested enum":        {"edit_file", `{"path":"a","edits":[{"op":"swap","line":1,"hash":"abcd","text":"x"}]}`, `invalid arguments for edit_file: "edits[0].op" must be one of "replace", "insert_after", "delete" (got "swap")`},
		"nested required":    {"edit_file", `{"path":"a","edits":[{"op":"delete","hash":"abcd"}]}`, `invalid arguments for edit_file: "edits[0].line" is required; "edits[0]" takes: op, line, hash, end_line, end_hash, text`},
		"empty array":        {"edit_file", `{"path":"a","edits":[]}`, `invalid arguments for edit_file: "edits" must not be empty`},
		"empty string":       {"run_command", `{"command":""}`, `invalid arguments for run_command: "command" must not be empty`},
		"above maximum":      {"run_command", `{"command":"true","timeout_seconds":1801}`, `invalid arguments for run_command: "timeout_seconds" must be at most 1800 (got 1801)`},
		"key pattern":        {"run_command", `{"command":"true","env":{"1X":"a"}}`, `invalid arguments for run_command: the name "1X" in "env" must match the pattern "^[A-Za-z_][A-Za-z0-9_]*$" (got "1X")`},
		"enum":               {"pick", `{"mode":"c"}`, `invalid arguments for pick: "mode" must be one of "a", "b" (got "c")`},
		"array too long":     {"pick", `{"ids":[1,2,3]}`, `invalid arguments for pick: "ids" must have at most 2 items (got 3)`},
		"item below minimum": {"pick", `{"ids":[1,-2]}`, `invalid arguments for pick: "ids[1]" must be at least 0 (got -2)`},
		"not an object":      {"pick", `[1]`, `invalid arguments for pick: the arguments must be a JSON object, got an array`},
		"no tool takes none": {"pick", `{"mod":"a"}`, `invalid arguments for pick: unknown argument "mod"; did you mean "mode"? pick takes: mode, ids, either`},
		"unmapped keyword": {"pick", `{"either":true}`, "invalid arguments for pick: validating root: validating /properties/either: anyOf: did not validate against any of [<anonymous schema> <anonymous schema>]:\n" +
			`validating /properties/either/anyOf/0: type: true has type "boolean", want "string"` + "\n" +
			`validating /properties/either/anyOf/1: type: true has type "boolean", want "integer"`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v, err := schema.NewValidator(tc.tool, specs[tc.tool].InputSchema)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if err := v.Validate(json.RawMessage(tc.args)); err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Validate(%s) (-want +got):\n%s", tc.args, diff)
			}
		})
	}
}

func TestNearestName(t *testing.T) {
	t.Parallel()
	names := []string{"path", "start", "limit", "timeout_seconds", "id"}
	for given, want := range map[string]string{
		"pth": "path", "Path": "path", "strat": "start", "limits": "limit", "timeoutSeconds": "timeout_seconds",
		"timeout-second": "timeout_seconds", "ids": "id", "file": "", "q": "", "ix": "",
	} {
		got, ok := schema.NearestName(given, names)
		if got != want || ok != (want != "") {
			t.Errorf("NearestName(%q) = %q, %v, want %q", given, got, ok, want)
		}
	}
}
