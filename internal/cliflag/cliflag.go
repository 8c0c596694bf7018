// Package cliflag holds the flag types the command line shares between the
// server and its subcommands.
package cliflag

import "strings"

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
