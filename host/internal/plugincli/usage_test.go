package plugincli

import (
	"bytes"
	"flag"
	"strings"
	"testing"
)

// TestUsage: the usage lists every command and every flag, each in a
// section (a new flag cannot be forgotten).
func TestUsage(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	Usage(&buf)
	out := buf.String()
	newFlagSet(&pluginOptions{}).VisitAll(func(f *flag.Flag) {
		if !strings.Contains(out, "--"+f.Name+" ") {
			t.Errorf("the usage lacks --%s", f.Name)
		}
	})
	for _, c := range Commands {
		if !strings.Contains(out, "  "+c.Synopsis+" ") {
			t.Errorf("the usage lacks %q", c.Synopsis)
		}
	}
	if strings.Contains(out, "other flags:") {
		t.Errorf("a flag is in no section of flagSections:\n%s", out)
	}
}
