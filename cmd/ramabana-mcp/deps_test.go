package main

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestBinaryLeavesOutStartCosts: the binary is the server and every bundled
// group's plugin process, so a linked package's init is paid at every start
// of either. These packages bring costly inits and nothing the binary uses:
// gRPC's reflection service and protodesc, which it links (internal/goplugin
// is go-plugin without them, see its README.md; the upstream module beside
// it would link them again), and testing.
func TestBinaryLeavesOutStartCosts(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		t.Fatalf("go list -deps: %v\n%s", err, ee.Stderr)
	} else if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/ramabana/ramabana-mcp/internal/goplugin") {
		t.Fatalf("go list -deps printed no internal/goplugin; the check would prove nothing:\n%s", out)
	}
	for _, p := range []string{
		"google.golang.org/grpc/reflection",
		"google.golang.org/protobuf/reflect/protodesc",
		"github.com/hashicorp/go-plugin",
		"testing",
	} {
		if slices.Contains(deps, p) {
			t.Errorf("the binary links %s", p)
		}
	}
}
