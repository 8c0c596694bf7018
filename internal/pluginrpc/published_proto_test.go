package pluginrpc_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	_ "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	_ "github.com/ramabana/ramabana-mcp/internal/gen/ramabana/plugin/v1"
	_ "github.com/ramabana/ramabana-mcp/internal/goplugin" // links go-plugin's controller descriptor
)

// published maps every .proto file under proto/ (relative to the
// repository) to the path under which the host links its descriptor. A
// plugin author in another language builds from these files alone, so
// they must declare exactly what the host speaks.
var published = map[string]string{
	"proto/ramabana/plugin/v1/plugin.proto":          "ramabana/plugin/v1/plugin.proto",
	"proto/third_party/grpc/health/v1/health.proto":  "grpc/health/v1/health.proto",
	"proto/third_party/plugin/grpc_controller.proto": "internal/plugin/grpc_controller.proto",
}

const repoRoot = "../.."

// TestPublishedProtosMatchTheHost compares each published file's
// declarations (package, messages and their fields, enums and their
// values, services and their methods with streaming) with the descriptor
// linked into the host.
func TestPublishedProtosMatchTheHost(t *testing.T) {
	t.Parallel()
	for file, linked := range published {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			text, err := os.ReadFile(filepath.Join(repoRoot, file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := protoShape(string(text))
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			fd, err := protoregistry.GlobalFiles.FindFileByPath(linked)
			if err != nil {
				t.Fatalf("the host links no %s: %v", linked, err)
			}
			if diff := cmp.Diff(descriptorShape(fd), got); diff != "" {
				t.Errorf("%s differs from the host's %s (-host +published):\n%s", file, linked, diff)
			}
		})
	}
}

// TestEveryPublishedProtoIsChecked keeps a new file under proto/ from
// going unchecked.
func TestEveryPublishedProtoIsChecked(t *testing.T) {
	t.Parallel()
	var found []string
	err := filepath.WalkDir(filepath.Join(repoRoot, "proto"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".proto") {
			rel, _ := filepath.Rel(repoRoot, path)
			found = append(found, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for f := range published {
		want = append(want, f)
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, found); diff != "" {
		t.Errorf("proto files (-checked +present); add a new one to published:\n%s", diff)
	}
}

// TestProtoShapeCatchesDrift proves the check can fail: each edit of a
// published file is either refused by the reader or differs from the
// host's descriptor.
func TestProtoShapeCatchesDrift(t *testing.T) {
	t.Parallel()
	health := readPublished(t, "proto/third_party/grpc/health/v1/health.proto")
	controller := readPublished(t, "proto/third_party/plugin/grpc_controller.proto")
	contract := readPublished(t, "proto/ramabana/plugin/v1/plugin.proto")
	for _, tc := range []struct {
		name, file, text, old, new string
	}{
		{"google's Empty", "internal/plugin/grpc_controller.proto", controller,
			"rpc Shutdown(Empty) returns (Empty);", "rpc Shutdown(google.protobuf.Empty) returns (google.protobuf.Empty);"},
		{"another package", "internal/plugin/grpc_controller.proto", controller, "package plugin;", "package go_plugin;"},
		{"Watch not streaming", "grpc/health/v1/health.proto", health,
			"returns (stream HealthCheckResponse);", "returns (HealthCheckResponse);"},
		{"List left out", "grpc/health/v1/health.proto", health,
			"rpc List(HealthListRequest) returns (HealthListResponse);", ""},
		{"a field renumbered", "grpc/health/v1/health.proto", health, "string service = 1;", "string service = 2;"},
		{"a field retyped", "grpc/health/v1/health.proto", health,
			"map<string, HealthCheckResponse> statuses = 1;", "map<string, HealthCheckRequest> statuses = 1;"},
		{"an enum value renumbered", "grpc/health/v1/health.proto", health, "NOT_SERVING = 2;", "NOT_SERVING = 4;"},
		{"optional dropped", "ramabana/plugin/v1/plugin.proto", contract, "optional bool read_only = 1;", "bool read_only = 1;"},
		{"out of the oneof", "ramabana/plugin/v1/plugin.proto", contract,
			"    Result result = 3;\n  }", "  }\n  Result result = 3;"},
		{"a line the reader does not know", "grpc/health/v1/health.proto", health,
			"message HealthListRequest {}", "message HealthListRequest { reserved 2; }"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if !strings.Contains(tc.text, tc.old) {
				t.Fatalf("the published file no longer holds %q", tc.old)
			}
			shape, err := protoShape(strings.Replace(tc.text, tc.old, tc.new, 1))
			if err != nil {
				return // refused: drift is caught
			}
			fd, err := protoregistry.GlobalFiles.FindFileByPath(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if cmp.Equal(descriptorShape(fd), shape) {
				t.Errorf("the edit went unnoticed")
			}
		})
	}
}

func readPublished(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, file))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// descriptorShape lists a linked file's declarations, one per line,
// sorted, in the form protoShape gives a source file's.
func descriptorShape(fd protoreflect.FileDescriptor) []string {
	out := []string{"package " + string(fd.Package())}
	var messages func(ms protoreflect.MessageDescriptors)
	enums := func(es protoreflect.EnumDescriptors) {
		for i := range es.Len() {
			e := es.Get(i)
			out = append(out, "enum "+string(e.FullName()))
			for j := range e.Values().Len() {
				v := e.Values().Get(j)
				out = append(out, fmt.Sprintf("value %s.%s = %d", e.FullName(), v.Name(), v.Number()))
			}
		}
	}
	messages = func(ms protoreflect.MessageDescriptors) {
		for i := range ms.Len() {
			m := ms.Get(i)
			if m.IsMapEntry() {
				continue
			}
			out = append(out, "message "+string(m.FullName()))
			for j := range m.Fields().Len() {
				f := m.Fields().Get(j)
				out = append(out, fieldLine(m.FullName(), string(f.Name()), int(f.Number()), descriptorLabel(f), descriptorType(f), descriptorOneof(f)))
			}
			for j := range m.Oneofs().Len() {
				if o := m.Oneofs().Get(j); !o.IsSynthetic() {
					out = append(out, "oneof "+string(o.FullName()))
				}
			}
			messages(m.Messages())
			enums(m.Enums())
		}
	}
	messages(fd.Messages())
	enums(fd.Enums())
	for i := range fd.Services().Len() {
		s := fd.Services().Get(i)
		out = append(out, "service "+string(s.FullName()))
		for j := range s.Methods().Len() {
			m := s.Methods().Get(j)
			out = append(out, rpcLine(s.FullName(), string(m.Name()),
				m.IsStreamingClient(), string(m.Input().FullName()), m.IsStreamingServer(), string(m.Output().FullName())))
		}
	}
	slices.Sort(out)
	return out
}

func descriptorLabel(f protoreflect.FieldDescriptor) string {
	switch {
	case f.IsMap():
		return ""
	case f.IsList():
		return "repeated"
	case f.HasOptionalKeyword():
		return "optional"
	}
	return ""
}

func descriptorType(f protoreflect.FieldDescriptor) string {
	if f.IsMap() {
		return fmt.Sprintf("map<%s, %s>", descriptorType(f.MapKey()), descriptorType(f.MapValue()))
	}
	switch f.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return string(f.Message().FullName())
	case protoreflect.EnumKind:
		return string(f.Enum().FullName())
	}
	return f.Kind().String()
}

func descriptorOneof(f protoreflect.FieldDescriptor) string {
	if o := f.ContainingOneof(); o != nil && !o.IsSynthetic() {
		return string(o.Name())
	}
	return ""
}

func fieldLine(msg protoreflect.FullName, name string, number int, label, typ, oneof string) string {
	s := fmt.Sprintf("field %s.%s = %d %s", msg, name, number, strings.TrimSpace(label+" "+typ))
	if oneof != "" {
		s += " in oneof " + oneof
	}
	return s
}

func rpcLine(svc protoreflect.FullName, name string, inStream bool, in string, outStream bool, out string) string {
	stream := func(s bool) string {
		if s {
			return "stream "
		}
		return ""
	}
	return fmt.Sprintf("rpc %s.%s(%s%s) returns (%s%s)", svc, name, stream(inStream), in, stream(outStream), out)
}

// The lines protoShape reads: one declaration a line, as the published
// files are written. Anything else is an error, so that a construct the
// reader does not understand cannot slip past the comparison.
var (
	syntaxRE = regexp.MustCompile(`^syntax = "proto3";$`)
	packRE   = regexp.MustCompile(`^package ([A-Za-z_][\w.]*);$`)
	optionRE = regexp.MustCompile(`^option \w+ = ("[^"]*"|true|false);$`)
	openRE   = regexp.MustCompile(`^(message|enum|service|oneof) (\w+) \{(\})?$`)
	fieldRE  = regexp.MustCompile(`^(?:(repeated|optional) )?(\.?[A-Za-z_][\w.]*|map<\s*(\w+)\s*,\s*(\.?[A-Za-z_][\w.]*)\s*>) (\w+) = (\d+);$`)
	valueRE  = regexp.MustCompile(`^([A-Z][A-Z0-9_]*) = (\d+);$`)
	rpcRE    = regexp.MustCompile(`^rpc (\w+)\((stream )?(\.?[A-Za-z_][\w.]*)\) returns \((stream )?(\.?[A-Za-z_][\w.]*)\);$`)
)

var scalars = []string{
	"double", "float", "int32", "int64", "uint32", "uint64", "sint32", "sint64",
	"fixed32", "fixed64", "sfixed32", "sfixed64", "bool", "string", "bytes",
}

// protoShape reads a proto3 file's declarations with a strict line reader
// and lists them as descriptorShape does. Type names are resolved as
// protoc resolves them within one file: from the innermost scope out.
// Imports are refused: a published file must stand alone.
func protoShape(text string) ([]string, error) {
	type scope struct {
		kind, name string // name is the full name
		oneof      string // for a oneof: its own short name; name is its message's
	}
	// ref is a declaration whose type names are resolved once the whole
	// file is read.
	type ref struct {
		line   int
		format string // with a %s for each type, in order
		scope  string
		types  []string
		kinds  []string // what each type may name: "message", or "message, enum or scalar"
	}
	var (
		pkg      string
		stack    []scope
		declared = map[string]string{} // full name: message, enum or service
		refs     []ref
		out      []string
	)
	full := func(name string) string {
		if len(stack) > 0 {
			return stack[len(stack)-1].name + "." + name
		}
		if pkg == "" {
			return name
		}
		return pkg + "." + name
	}
	top := func() scope {
		if len(stack) == 0 {
			return scope{kind: "file"}
		}
		return stack[len(stack)-1]
	}
	for i, raw := range strings.Split(text, "\n") {
		n := i + 1
		line := strings.TrimSpace(stripComment(raw))
		if line == "" {
			continue
		}
		cur := top()
		switch {
		case line == "}":
			if len(stack) == 0 {
				return nil, fmt.Errorf("line %d: } closes nothing", n)
			}
			stack = stack[:len(stack)-1]
		case cur.kind == "file" && syntaxRE.MatchString(line):
		case cur.kind == "file" && packRE.MatchString(line):
			if pkg != "" || len(out) > 0 {
				return nil, fmt.Errorf("line %d: package comes once, before any declaration", n)
			}
			pkg = packRE.FindStringSubmatch(line)[1]
			out = append(out, "package "+pkg)
		case (cur.kind == "file" || cur.kind == "message") && optionRE.MatchString(line):
			// Options change no name on the wire.
		case openRE.MatchString(line):
			m := openRE.FindStringSubmatch(line)
			kind, name, closed := m[1], m[2], m[3] != ""
			allowed := map[string][]string{
				"message": {"file", "message"}, "enum": {"file", "message"},
				"service": {"file"}, "oneof": {"message"},
			}[kind]
			if !slices.Contains(allowed, cur.kind) {
				return nil, fmt.Errorf("line %d: a %s inside a %s", n, kind, cur.kind)
			}
			s := scope{kind: kind, name: full(name)}
			if kind == "oneof" {
				s = scope{kind: kind, name: cur.name, oneof: name}
				out = append(out, "oneof "+cur.name+"."+name)
			} else {
				if declared[s.name] != "" {
					return nil, fmt.Errorf("line %d: %s is declared twice", n, s.name)
				}
				declared[s.name] = kind
				out = append(out, kind+" "+s.name)
			}
			if !closed {
				stack = append(stack, s)
			}
		case (cur.kind == "message" || cur.kind == "oneof") && fieldRE.MatchString(line):
			m := fieldRE.FindStringSubmatch(line)
			label, typ, mapKey, mapValue, name, number := m[1], m[2], m[3], m[4], m[5], m[6]
			if cur.kind == "oneof" && label != "" {
				return nil, fmt.Errorf("line %d: a oneof field takes no label", n)
			}
			oneofPart := ""
			if cur.kind == "oneof" {
				oneofPart = " in oneof " + cur.oneof
			}
			head := fmt.Sprintf("field %s.%s = %s ", cur.name, name, number)
			if label != "" {
				head += label + " "
			}
			if mapKey != "" {
				if label != "" {
					return nil, fmt.Errorf("line %d: a map field takes no label", n)
				}
				if !slices.Contains(scalars, mapKey) || mapKey == "double" || mapKey == "float" || mapKey == "bytes" {
					return nil, fmt.Errorf("line %d: %s cannot be a map key", n, mapKey)
				}
				refs = append(refs, ref{line: n, format: head + "map<" + mapKey + ", %s>" + oneofPart, scope: cur.name,
					types: []string{mapValue}, kinds: []string{"message, enum or scalar"}})
			} else {
				refs = append(refs, ref{line: n, format: head + "%s" + oneofPart, scope: cur.name,
					types: []string{typ}, kinds: []string{"message, enum or scalar"}})
			}
		case cur.kind == "enum" && valueRE.MatchString(line):
			m := valueRE.FindStringSubmatch(line)
			out = append(out, fmt.Sprintf("value %s.%s = %s", cur.name, m[1], m[2]))
		case cur.kind == "service" && rpcRE.MatchString(line):
			m := rpcRE.FindStringSubmatch(line)
			format := fmt.Sprintf("rpc %s.%s(%s%%s) returns (%s%%s)", cur.name, m[1], m[2], m[4])
			refs = append(refs, ref{line: n, format: format, scope: cur.name,
				types: []string{m[3], m[5]}, kinds: []string{"message", "message"}})
		default:
			return nil, fmt.Errorf("line %d: the reader does not know %q in a %s", n, line, cur.kind)
		}
	}
	if len(stack) > 0 {
		return nil, fmt.Errorf("%s %s is not closed", stack[len(stack)-1].kind, stack[len(stack)-1].name)
	}
	if pkg == "" {
		return nil, fmt.Errorf("no package")
	}
	for _, r := range refs {
		args := make([]any, len(r.types))
		for i, typ := range r.types {
			resolved, kind, err := resolve(typ, r.scope, declared)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", r.line, err)
			}
			if !strings.Contains(r.kinds[i], kind) {
				return nil, fmt.Errorf("line %d: %s is a %s, not a %s", r.line, typ, kind, r.kinds[i])
			}
			args[i] = resolved
		}
		out = append(out, fmt.Sprintf(r.format, args...))
	}
	slices.Sort(out)
	return out, nil
}

// resolve finds the declaration a type name in scope refers to, and its
// kind (message, enum, service or scalar): a scalar, an absolute name, or the name tried
// in scope and each enclosing one.
func resolve(typ, scope string, declared map[string]string) (name, kind string, err error) {
	if slices.Contains(scalars, typ) {
		return typ, "scalar", nil
	}
	if abs, ok := strings.CutPrefix(typ, "."); ok {
		if k := declared[abs]; k != "" {
			return abs, k, nil
		}
		return "", "", fmt.Errorf("type %s is not declared in the file", typ)
	}
	for s := scope; ; {
		if k := declared[s+"."+typ]; k != "" {
			return s + "." + typ, k, nil
		}
		i := strings.LastIndexByte(s, '.')
		if i < 0 {
			break
		}
		s = s[:i]
	}
	if k := declared[typ]; k != "" {
		return typ, k, nil
	}
	return "", "", fmt.Errorf("type %s is not declared in the file (imports are not read)", typ)
}

// stripComment cuts a // comment off a line, outside string literals.
func stripComment(line string) string {
	inString := false
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '"':
			inString = !inString
		case !inString && strings.HasPrefix(line[i:], "//"):
			return line[:i]
		}
	}
	return line
}
