package upstream

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"strings"
)

var varName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// expand replaces ${NAME} and ${NAME:-default} with values from lookup. An
// unset NAME without a default is an error; a "$" not followed by "{" is
// kept as written.
func expand(s string, lookup func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", fmt.Errorf("unclosed %q", s[i:])
		}
		ref := s[i+2 : i+end]
		name, def, hasDef := strings.Cut(ref, ":-")
		if strings.HasPrefix(ref, "input:") {
			return "", fmt.Errorf("%q: VS Code input variables are not supported; use a ${VAR} environment reference instead", s[i:i+end+1])
		}
		if v, ok := strings.CutPrefix(ref, "env:"); ok && varName.MatchString(v) {
			return "", fmt.Errorf("%q is VS Code's form of an environment reference; write ${%s}", s[i:i+end+1], v)
		}
		if !varName.MatchString(name) {
			return "", fmt.Errorf("%q is not a variable reference (want ${NAME} or ${NAME:-default})", s[i:i+end+1])
		}
		v, ok := lookup(name)
		switch {
		case ok && (v != "" || !hasDef):
			b.WriteString(v)
		case hasDef:
			b.WriteString(def)
		default:
			return "", fmt.Errorf("environment variable %s is not set", name)
		}
		s = s[i+end+1:]
	}
}

// checkRefs reports a malformed reference without looking anything up.
func checkRefs(s string) error {
	_, err := expand(s, func(string) (string, bool) { return "", true })
	return err
}

// expanded returns s with every reference expanded.
func (s Server) expanded(lookup func(string) (string, bool)) (Server, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	var errs []error
	one := func(what, v string) string {
		out, err := expand(v, lookup)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", what, err))
		}
		return out
	}
	out := s
	out.Command = one(`"command"`, s.Command)
	out.Cwd = one(`"cwd"`, s.Cwd)
	out.URL = one(`"url"`, s.URL)
	out.Args = make([]string, len(s.Args))
	for i, a := range s.Args {
		out.Args[i] = one(fmt.Sprintf(`"args"[%d]`, i), a)
	}
	out.Env = maps.Clone(s.Env)
	for _, k := range sortedKeys(s.Env) {
		out.Env[k] = one(fmt.Sprintf(`"env" %s`, k), s.Env[k])
	}
	out.Headers = maps.Clone(s.Headers)
	for _, k := range sortedKeys(s.Headers) {
		out.Headers[k] = one(fmt.Sprintf(`"headers" %s`, k), s.Headers[k])
	}
	if err := errors.Join(errs...); err != nil {
		return Server{}, err
	}
	if s.URL != "" && out.URL != s.URL {
		if err := checkURL(out.URL); err != nil {
			return Server{}, err
		}
	}
	return out, nil
}
