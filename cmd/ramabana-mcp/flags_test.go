package main

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/host"
)

// TestFlagsInUsage: the usage shows every flag, each in a section of
// host.FlagSections (none under "other flags").
func TestFlagsInUsage(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	fs := newFlagSet(&flags{})
	host.PrintUsage(&buf, fs)
	usage := buf.String()
	if strings.Contains(usage, "other flags:") {
		t.Errorf("a flag is in no section of host.FlagSections:\n%s", usage)
	}
	fs.VisitAll(func(f *flag.Flag) {
		if !strings.Contains(usage, "--"+f.Name) {
			t.Errorf("the usage lacks --%s:\n%s", f.Name, usage)
		}
	})
}

// TestFlagDefaults: a command line with no flags is host.Defaults, and
// each flag sets its field.
func TestFlagDefaults(t *testing.T) {
	t.Parallel()
	f, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(host.Defaults(), f.cfg, cmp.AllowUnexported(host.Config{})); diff != "" {
		t.Errorf("no flags (-want +got):\n%s", diff)
	}
	f, err = parseFlags([]string{"--root", "a,b", "--root", "c", "--write", "--web=false", "--sandbox", "off", "--pii", "redact", "--vault", "--max-retries", "0", "--tools", "search"})
	if err != nil {
		t.Fatal(err)
	}
	want := host.Defaults()
	want.Roots, want.Write, want.Web, want.NoSandbox, want.PII, want.Vault, want.MaxRetries, want.Tools = []string{"a", "b", "c"}, true, false, true, "redact", true, 0, "search"
	if diff := cmp.Diff(want, f.cfg, cmp.AllowUnexported(host.Config{})); diff != "" {
		t.Errorf("flags (-want +got):\n%s", diff)
	}
}
