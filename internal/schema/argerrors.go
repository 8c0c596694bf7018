package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/internal/editdist"
)

// Argument errors in words. The schema validator stays the judge of what
// is valid; when it refuses arguments, describe says why in words a model
// can act on: which argument, what was wrong, what was expected, and for
// an unknown or missing argument the names the tool takes, with the
// closest to a misspelt one. jsonschema-go reports its first failure as
// flat text ("validating /properties/start: minimum: 0/1 is less than
// 1.000000"), with no structure to walk, so describe walks the schema
// against the arguments itself, for the keywords tools use; a failure it
// cannot place (anyOf, $ref, ...) keeps the validator's own message.

// maxProblems is how many problems an argument error names.
const maxProblems = 3

// describe returns the problems with value (the decoded arguments) under
// schema, for the tool called tool, at most maxProblems; none when it
// cannot place the failure.
func describe(tool string, schema *jsonschema.Schema, value any) []string {
	d := &describer{}
	d.walk(argPath{tool: tool}, schema, value)
	if len(d.problems) == 0 {
		return nil
	}
	if len(d.problems) > maxProblems {
		more := len(d.problems) - maxProblems
		d.problems = append(d.problems[:maxProblems], fmt.Sprintf("and %d more", more))
	}
	return append(d.problems, d.takes...)
}

// joinProblems makes one message of problems: clauses apart with "; ",
// but a question ("did you mean "path"?") ends its own.
func joinProblems(problems []string) string {
	var b strings.Builder
	for i, p := range problems {
		switch {
		case i == 0:
		case strings.HasSuffix(problems[i-1], "?"):
			b.WriteString(" ")
		default:
			b.WriteString("; ")
		}
		b.WriteString(p)
	}
	return b.String()
}

// argPath names a value in the arguments: a top-level argument by its
// name ("start"), a nested one by its path ("edits[0].op"); the root is
// the tool.
type argPath struct {
	tool  string
	path  string // "" at the root
	label string // when set, the subject instead of the quoted path (an object's key)
}

func (p argPath) field(name string) argPath {
	if p.path == "" {
		return argPath{tool: p.tool, path: name}
	}
	return argPath{tool: p.tool, path: p.path + "." + name}
}

func (p argPath) index(i int) argPath {
	return argPath{tool: p.tool, path: fmt.Sprintf("%s[%d]", p.path, i)}
}

// key is the subject for the name of a key of the object at p.
func (p argPath) key(k string) argPath {
	where := "the arguments"
	if p.path != "" {
		where = strconv.Quote(p.path)
	}
	return argPath{tool: p.tool, label: fmt.Sprintf("the name %q in %s", k, where)}
}

// String is the subject of a problem: the quoted path.
func (p argPath) String() string {
	if p.label != "" {
		return p.label
	}
	return strconv.Quote(p.path)
}

type describer struct {
	problems []string
	takes    []string // what each object with an unknown or missing argument takes, said after the problems
}

func (d *describer) add(format string, args ...any) {
	d.problems = append(d.problems, fmt.Sprintf(format, args...))
}

// walk adds the problems of value under schema at p. Keywords it does not
// know (anyOf, oneOf, not, $ref, if/then/else) it leaves to the
// validator's message.
func (d *describer) walk(p argPath, s *jsonschema.Schema, value any) {
	if s == nil {
		return
	}
	if isFalse(s) {
		d.add("%s is not allowed", p)
		return
	}
	got := jsonType(value)
	if want := schemaTypes(s); len(want) > 0 && !typeMatches(got, want) {
		d.add("%s must be %s, got %s", p, typeNames(want), show(value))
		return
	}
	for _, sub := range s.AllOf {
		d.walk(p, sub, value)
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return jsonEqual(e, value) }) {
		vals := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			vals[i] = show(e)
		}
		d.add("%s must be one of %s (got %s)", p, strings.Join(vals, ", "), show(value))
	}
	if s.Const != nil && !jsonEqual(*s.Const, value) {
		d.add("%s must be %s (got %s)", p, show(*s.Const), show(value))
	}
	switch v := value.(type) {
	case float64:
		d.number(p, s, v)
	case string:
		d.str(p, s, v)
	case []any:
		d.array(p, s, v)
	case map[string]any:
		d.object(p, s, v)
	}
}

func (d *describer) number(p argPath, s *jsonschema.Schema, n float64) {
	switch {
	case s.Minimum != nil && n < *s.Minimum:
		d.add("%s must be at least %s (got %s)", p, num(*s.Minimum), num(n))
	case s.Maximum != nil && n > *s.Maximum:
		d.add("%s must be at most %s (got %s)", p, num(*s.Maximum), num(n))
	case s.ExclusiveMinimum != nil && n <= *s.ExclusiveMinimum:
		d.add("%s must be greater than %s (got %s)", p, num(*s.ExclusiveMinimum), num(n))
	case s.ExclusiveMaximum != nil && n >= *s.ExclusiveMaximum:
		d.add("%s must be less than %s (got %s)", p, num(*s.ExclusiveMaximum), num(n))
	}
	if m := s.MultipleOf; m != nil && *m > 0 {
		if q := n / *m; q != math.Trunc(q) {
			d.add("%s must be a multiple of %s (got %s)", p, num(*m), num(n))
		}
	}
}

func (d *describer) str(p argPath, s *jsonschema.Schema, v string) {
	n := utf8.RuneCountInString(v)
	switch {
	case s.MinLength != nil && n < *s.MinLength && n == 0:
		d.add("%s must not be empty", p)
	case s.MinLength != nil && n < *s.MinLength:
		d.add("%s must be at least %d characters long (got %d)", p, *s.MinLength, n)
	case s.MaxLength != nil && n > *s.MaxLength:
		d.add("%s must be at most %d characters long (got %d)", p, *s.MaxLength, n)
	}
	if s.Pattern != "" {
		if re, err := regexp.Compile(s.Pattern); err == nil && !re.MatchString(v) {
			d.add("%s must match the pattern %q (got %s)", p, s.Pattern, show(v))
		}
	}
}

func (d *describer) array(p argPath, s *jsonschema.Schema, v []any) {
	switch {
	case s.MinItems != nil && len(v) < *s.MinItems && len(v) == 0:
		d.add("%s must not be empty", p)
	case s.MinItems != nil && len(v) < *s.MinItems:
		d.add("%s must have at least %d items (got %d)", p, *s.MinItems, len(v))
	case s.MaxItems != nil && len(v) > *s.MaxItems:
		d.add("%s must have at most %d items (got %d)", p, *s.MaxItems, len(v))
	}
	if s.UniqueItems {
	unique:
		for i := range v {
			for j := i + 1; j < len(v); j++ {
				if jsonEqual(v[i], v[j]) {
					d.add("%s must not repeat an item (items %d and %d are equal)", p, i, j)
					break unique
				}
			}
		}
	}
	if s.Items != nil {
		for i, item := range v {
			d.walk(p.index(i), s.Items, item)
		}
	}
}

func (d *describer) object(p argPath, s *jsonschema.Schema, v map[string]any) {
	names := propertyNames(s)
	for _, k := range names {
		if val, ok := v[k]; ok {
			d.walk(p.field(k), s.Properties[k], val)
		}
	}
	var unknown []string
	for _, k := range sortedKeys(v) {
		if _, ok := s.Properties[k]; ok || matchesPattern(s, k) {
			continue // patternProperties: left to the validator
		}
		if s.AdditionalProperties != nil {
			if isFalse(s.AdditionalProperties) {
				unknown = append(unknown, k)
			} else {
				d.walk(p.field(k), s.AdditionalProperties, v[k])
			}
		}
	}
	if s.PropertyNames != nil {
		for _, k := range sortedKeys(v) {
			d.walk(p.key(k), s.PropertyNames, k)
		}
	}
	var missing []string
	for _, r := range s.Required {
		if _, ok := v[r]; !ok {
			missing = append(missing, r)
		}
	}
	// A misspelt argument and the required one it stands for are one
	// mistake: say it once, as the misspelling.
	explained := map[string]bool{}
	for _, k := range unknown {
		near, ok := NearestName(k, notGiven(names, v))
		if !ok && len(unknown) == 1 && len(missing) == 1 && fits(s.Properties[missing[0]], v[k]) {
			// Not a misspelling, but the one argument given where the
			// one missing is wanted, with a value of its type: a
			// synonym ("file" for "path").
			near, ok = missing[0], true
		}
		if ok {
			explained[near] = true
			d.add("unknown argument %s%s; did you mean %q?", strconv.Quote(k), p.in(), near)
		} else {
			d.add("unknown argument %s%s", strconv.Quote(k), p.in())
		}
	}
	for _, m := range missing {
		if !explained[m] {
			d.add("%s is required", p.field(m))
		}
	}
	for prop, deps := range s.DependentRequired {
		if _, ok := v[prop]; !ok {
			continue
		}
		for _, dep := range deps {
			if _, ok := v[dep]; !ok {
				d.add("%s requires %s", p.field(prop), p.field(dep))
			}
		}
	}
	if s.MinProperties != nil && len(v) < *s.MinProperties {
		d.add("%s must have at least %d arguments (got %d)", p.subject(), *s.MinProperties, len(v))
	}
	if s.MaxProperties != nil && len(v) > *s.MaxProperties {
		d.add("%s must have at most %d arguments (got %d)", p.subject(), *s.MaxProperties, len(v))
	}
	if len(unknown) > 0 || len(missing) > 0 {
		d.takes = append(d.takes, takes(p, names))
	}
}

// fits reports whether value has a type the schema s allows.
func fits(s *jsonschema.Schema, value any) bool {
	want := schemaTypes(s)
	return s != nil && (len(want) == 0 || typeMatches(jsonType(value), want))
}

// in is " in <path>" for a nested object, "" at the root.
func (p argPath) in() string {
	if p.path == "" {
		return ""
	}
	return " in " + p.String()
}

// subject names the object at p: the tool's arguments at the root.
func (p argPath) subject() string {
	if p.path == "" {
		return p.tool
	}
	return p.String()
}

// takes lists the names an object takes: "view_file takes: path, start".
func takes(p argPath, names []string) string {
	if len(names) == 0 {
		return p.subject() + " takes no arguments"
	}
	return p.subject() + " takes: " + strings.Join(names, ", ")
}

// propertyNames are the object's property names, in the schema's order
// when known (see setPropertyOrder), required ones first otherwise.
func propertyNames(s *jsonschema.Schema) []string {
	var out []string
	for _, n := range s.PropertyOrder {
		if _, ok := s.Properties[n]; ok && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	var rest []string
	for n := range s.Properties {
		if !slices.Contains(out, n) {
			rest = append(rest, n)
		}
	}
	sort.Slice(rest, func(i, j int) bool {
		ri, rj := slices.Contains(s.Required, rest[i]), slices.Contains(s.Required, rest[j])
		if ri != rj {
			return ri
		}
		return rest[i] < rest[j]
	})
	return append(out, rest...)
}

func notGiven(names []string, v map[string]any) []string {
	var out []string
	for _, n := range names {
		if _, ok := v[n]; !ok {
			out = append(out, n)
		}
	}
	return out
}

func matchesPattern(s *jsonschema.Schema, k string) bool {
	for pat := range s.PatternProperties {
		if re, err := regexp.Compile(pat); err == nil && re.MatchString(k) {
			return true
		}
	}
	return false
}

func sortedKeys(v map[string]any) []string {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// isFalse reports whether s is the schema false, which jsonschema-go reads
// as {"not": {}}.
func isFalse(s *jsonschema.Schema) bool {
	return s != nil && s.Not != nil && reflect.ValueOf(*s.Not).IsZero()
}

// NearestName returns the candidate closest to name, if one is close:
// the same but for case, '_' and '-' or a plural 's' (start_line,
// startLine, start-lines), or within an edit distance of 2 that is less
// than half the candidate's length. Ties go to the earlier candidate.
func NearestName(name string, candidates []string) (string, bool) {
	key := func(s string) string {
		s = strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
		return strings.TrimSuffix(s, "s")
	}
	for _, c := range candidates {
		if key(c) == key(name) {
			return c, true
		}
	}
	best, bestD := "", 3
	for _, c := range candidates {
		if d := editdist.Levenshtein(strings.ToLower(name), strings.ToLower(c)); d < bestD && 2*d < utf8.RuneCountInString(c) {
			best, bestD = c, d
		}
	}
	return best, best != ""
}

// jsonType is the JSON Schema type of a decoded JSON value.
func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if v == math.Trunc(v) && !math.IsInf(v, 0) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}

func schemaTypes(s *jsonschema.Schema) []string {
	if s.Type != "" {
		return []string{s.Type}
	}
	return s.Types
}

func typeMatches(got string, want []string) bool {
	return slices.Contains(want, got) || got == "integer" && slices.Contains(want, "number")
}

// typeNames reads types in words: "a string", "an integer or null".
func typeNames(types []string) string {
	words := make([]string, len(types))
	for i, t := range types {
		switch t {
		case "null":
			words[i] = "null"
		case "array", "object", "integer":
			words[i] = "an " + t
		default:
			words[i] = "a " + t
		}
	}
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// show renders a value for a message: scalars as JSON (a long string
// cut short), arrays and objects by their type.
func show(v any) string {
	switch v := v.(type) {
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case string:
		if utf8.RuneCountInString(v) > 40 {
			v = string([]rune(v)[:40]) + "…"
		}
		return strconv.Quote(v)
	case float64:
		return num(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// jsonEqual compares two decoded JSON values (an enum's, read from the
// schema, and an argument's).
func jsonEqual(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// setPropertyOrder records, in every object schema of s, the order its
// properties are declared in raw, the schema's JSON, so that a message
// lists a tool's arguments as its author wrote them. jsonschema-go keeps
// PropertyOrder only for schemas it infers.
func setPropertyOrder(s *jsonschema.Schema, raw json.RawMessage) {
	if s == nil {
		return
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return
	}
	if props, ok := fields["properties"]; ok {
		s.PropertyOrder = objectKeys(props)
		var sub map[string]json.RawMessage
		if json.Unmarshal(props, &sub) == nil {
			for name, r := range sub {
				setPropertyOrder(s.Properties[name], r)
			}
		}
	}
	if r, ok := fields["items"]; ok {
		setPropertyOrder(s.Items, r)
	}
	if r, ok := fields["additionalProperties"]; ok {
		setPropertyOrder(s.AdditionalProperties, r)
	}
	var all []json.RawMessage
	if r, ok := fields["allOf"]; ok && json.Unmarshal(r, &all) == nil && len(all) == len(s.AllOf) {
		for i, r := range all {
			setPropertyOrder(s.AllOf[i], r)
		}
	}
}

// objectKeys returns a JSON object's keys in order.
func objectKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := t.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}
