package roots_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

func TestCache(t *testing.T) {
	t.Parallel()
	base := fixture(t)
	root, other := filepath.Join(base, "root"), filepath.Join(base, "other")
	var c roots.Cache
	get := func(h sdk.Host) *roots.Roots {
		t.Helper()
		r, err := c.For(h)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := get(sdk.Host{Roots: []string{root}})
	if get(sdk.Host{Roots: []string{root}, Web: true}) != first {
		t.Error("same roots, other host fields: built again")
	}
	if r := get(sdk.Host{Roots: []string{root}, ReadOutside: true}); r == first || !r.ReadOutside() {
		t.Error("ReadOutside not part of the key")
	}
	if r := get(sdk.Host{Roots: []string{root, other}}); r == first || len(r.List()) != 2 {
		t.Error("roots not part of the key")
	}
	if _, err := c.For(sdk.Host{Roots: []string{"relative"}}); err == nil {
		t.Error("relative served folder accepted")
	}

	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			if _, err := c.For(sdk.Host{Roots: []string{root, other}[:1+i%2], ReadOutside: i%3 == 0}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

func TestTypedTool(t *testing.T) {
	t.Parallel()
	base := fixture(t)
	root := filepath.Join(base, "root")
	var c roots.Cache
	fault := errors.New("disk on fire")
	tests := map[string]struct {
		host    sdk.Host
		err     error
		want    string
		wantErr string
	}{
		"resolved":     {host: sdk.Host{Roots: []string{root}}, want: "a.txt"},
		"failure":      {host: sdk.Host{Roots: []string{root}}, err: sdk.Failf("stale"), want: "stale"},
		"fault":        {host: sdk.Host{Roots: []string{root}}, err: fault, wantErr: "t: disk on fire"},
		"bad host ctx": {host: sdk.Host{Roots: []string{"relative"}}, wantErr: `t: served folders: served folder "relative"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tool := roots.TypedTool(&c, sdk.ToolSpec{Name: "t", Kind: sdk.KindRead}, func(_ context.Context, r *roots.Roots, _ struct{}) (*sdk.Result, error) {
				if tc.err != nil {
					return nil, tc.err
				}
				return sdk.TextResult(r.Rel(filepath.Join(root, "a.txt"))), nil
			})
			res, err := tool.Handler(context.Background(), &sdk.Request{Call: sdk.Call{Tool: "t"}, Host: tc.host})
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one starting %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, res.Text()); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
		})
	}
}
