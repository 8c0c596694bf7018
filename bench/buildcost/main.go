// Command buildcost reads the action graph `go build -debug-actiongraph`
// wrote and says where a build's compile time went: the seconds of every
// package compile summed, in all and per module (the standard library as
// one), most first. Run it on a cold build (an empty GOCACHE) to measure
// what a first build costs:
//
//	GOCACHE=$(mktemp -d) go build -debug-actiongraph=/tmp/ag.json -o /dev/null ./cmd/ramabana-mcp
//	go run ./bench/buildcost /tmp/ag.json
//
// Each action's time is its wall time; with -p at the number of cores the
// sum is close to the CPU time of the compiles. The C compiles of cgo
// packages and the link are reported apart.
package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

type action struct {
	Mode      string
	Package   string
	TimeStart time.Time
	TimeDone  time.Time
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: buildcost ACTIONGRAPH.json")
		os.Exit(2)
	}
	raw, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "buildcost:", err)
		os.Exit(1)
	}
	var actions []action
	if err := json.Unmarshal(raw, &actions); err != nil {
		fmt.Fprintln(os.Stderr, "buildcost: not an action graph:", err)
		os.Exit(1)
	}
	perModule := map[string]time.Duration{}
	var compile, cgo, link time.Duration
	for _, a := range actions {
		if a.TimeStart.IsZero() || a.TimeDone.Before(a.TimeStart) {
			continue // cached or not run
		}
		d := a.TimeDone.Sub(a.TimeStart)
		switch {
		case a.Mode == "build":
			compile += d
			perModule[module(a.Package)] += d
		case strings.HasPrefix(a.Mode, "cgo"):
			cgo += d
		case a.Mode == "link":
			link += d
		}
	}
	fmt.Printf("compile %.1f s   cgo %.1f s   link %.1f s\n", compile.Seconds(), cgo.Seconds(), link.Seconds())
	mods := make([]string, 0, len(perModule))
	for m := range perModule {
		mods = append(mods, m)
	}
	slices.SortFunc(mods, func(a, b string) int { return cmp.Compare(perModule[b], perModule[a]) })
	for _, m := range mods {
		if perModule[m] >= 500*time.Millisecond {
			fmt.Printf("%7.1f s  %s\n", perModule[m].Seconds(), m)
		}
	}
}

// module names the module a package path belongs to, near enough to read
// a build's costs by: the standard library as "std", a path under
// github.com or golang.org as its first three elements (owner/repo, x/name),
// another as its first two (google.golang.org/grpc, modernc.org/libc), and
// OpenTelemetry's many modules as one.
func module(pkg string) string {
	parts := strings.Split(pkg, "/")
	n := 2
	switch {
	case !strings.Contains(parts[0], "."):
		return "std"
	case parts[0] == "go.opentelemetry.io":
		return "go.opentelemetry.io (otel)"
	case parts[0] == "github.com" || parts[0] == "golang.org":
		n = 3
	}
	return strings.Join(parts[:min(n, len(parts))], "/")
}
