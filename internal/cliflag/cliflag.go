// Package cliflag holds what the command line's parts share: flag types
// that say what a good value is, the grouped usage text, usage errors
// (exit status 2) and the terminal check.
package cliflag

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// List collects repeatable, comma-separated values.
type List []string

func (l *List) String() string { return strings.Join(*l, ",") }

// Set adds the comma-separated values of s, trimmed, skipping empty ones.
func (l *List) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

// ParseAnywhere parses fs's flags anywhere among args, so that
// `cmd ARG --flag v` works as well as `cmd --flag v ARG`, and returns the
// arguments that are not flags, in order.
func ParseAnywhere(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return rest, nil
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// ConfigDir is the --cfg value, or ramabana in the user's config dir when
// it is empty: where the server and its subcommands find plugins and
// mcp.json.
func ConfigDir(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("config dir: %w (set --cfg)", err)
	}
	return filepath.Join(dir, "ramabana"), nil
}
