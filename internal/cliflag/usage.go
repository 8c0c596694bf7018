package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// UsageError is a command line the program cannot run: an unknown flag or
// command, or a flag value it refuses. The main prints it with a pointer
// to Help and exits with status 2 (a failure once running is status 1).
type UsageError struct {
	Err error
	// Help is the command that prints the relevant usage, such as
	// "ramabana-mcp --help".
	Help string
}

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usage marks err, when it is not nil already, as a usage error.
func Usage(err error, help string) error {
	var ue *UsageError
	if err == nil || errors.As(err, &ue) {
		return err
	}
	return &UsageError{Err: err, Help: help}
}

// Section is a titled group of flags in a usage text. Each entry of Flags
// is a flag name, followed by a space and a placeholder for its value when
// it takes one: "root DIRS", "write".
type Section struct {
	Title string
	Flags []string
}

// usageWidth is the width the flag descriptions are wrapped to.
const usageWidth = 80

// PrintFlags writes the flags of fs by section: the flag with its
// placeholder, then its usage wrapped and indented, with its default when
// the usage does not give one. A flag of fs in no section is listed under
// "other flags", so that a new flag is never missing from the help; a
// section naming a flag fs lacks is a programming error, and panics.
func PrintFlags(w io.Writer, fs *flag.FlagSet, sections []Section) {
	listed := map[string]bool{}
	for _, s := range sections {
		fmt.Fprintf(w, "\n%s:\n", s.Title)
		for _, entry := range s.Flags {
			name, placeholder, _ := strings.Cut(entry, " ")
			f := fs.Lookup(name)
			if f == nil {
				panic(fmt.Sprintf("cliflag: usage section %q names no flag %q", s.Title, name))
			}
			listed[name] = true
			printFlag(w, f, placeholder)
		}
	}
	var other []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		if !listed[f.Name] {
			other = append(other, f)
		}
	})
	if len(other) > 0 {
		fmt.Fprint(w, "\nother flags:\n")
		for _, f := range other {
			printFlag(w, f, "VALUE")
		}
	}
}

func printFlag(w io.Writer, f *flag.Flag, placeholder string) {
	head := "  --" + f.Name
	if placeholder != "" {
		head += " " + placeholder
	}
	text := f.Usage
	if showDefault(f) {
		text += fmt.Sprintf(" (default %s)", f.DefValue)
	}
	fmt.Fprintln(w, head)
	for _, line := range wrap(text, usageWidth-8) {
		fmt.Fprintln(w, "        "+line)
	}
}

// showDefault reports whether the default is worth printing: not a zero
// value, and not given by the usage already.
func showDefault(f *flag.Flag) bool {
	if strings.Contains(f.Usage, "(default") {
		return false
	}
	return !slices.Contains([]string{"", "0", "0s", "false"}, f.DefValue)
}

// wrap breaks text into lines of at most width runes where it can: a
// word longer than width has a line of its own.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case len([]rune(line))+1+len([]rune(word)) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
