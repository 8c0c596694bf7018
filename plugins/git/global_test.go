package git_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ramabana/ramabana-mcp/plugins/git"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// TestGlobalConfigInServedFolder puts program keys in "trusted" config the
// model could write: ~/.gitconfig when the home folder is served, and files
// inside the served folder that a global include or includeIf brings in.
// Without commands nothing runs, and a filter it names is refused as a
// repository's would be. Not parallel: it sets HOME and GIT_CONFIG_GLOBAL.
func TestGlobalConfigInServedFolder(t *testing.T) {
	tried, held := 0, 0
	t.Cleanup(func() { t.Logf("global config cases: %d tried, %d held, %d broken", tried, held, tried-held) })
	programs := func(e *trustEnv) string {
		return fmt.Sprintf("[core]\n\tfsmonitor = %s\n\tpager = %s\n[diff \"drv\"]\n\ttextconv = %s\n[filter \"drv\"]\n\tclean = %s\n\tsmudge = %s\n[gpg]\n\tprogram = %s\n[commit]\n\tgpgSign = true\n[log]\n\tshowSignature = true\n",
			e.cmd("g-fsmonitor"), e.cmd("g-pager", "cat"), e.cmd("g-textconv", "file"), e.cmd("g-clean", "cat"), e.cmd("g-smudge", "cat"), e.cmd("g-gpg"))
	}
	cases := map[string]func(t *testing.T, e *trustEnv){
		"~/.gitconfig in the served home": func(t *testing.T, e *trustEnv) {
			t.Setenv("HOME", e.root)
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(e.root, ".config"))
			t.Setenv("GIT_CONFIG_GLOBAL", "")
			os.Unsetenv("GIT_CONFIG_GLOBAL")
			writeFile(t, filepath.Join(e.root, ".gitconfig"), programs(e))
		},
		"global include of a served file": func(t *testing.T, e *trustEnv) {
			writeFile(t, filepath.Join(e.root, "inc.cfg"), programs(e))
			global := filepath.Join(e.base, "global")
			writeFile(t, global, "[include]\n\tpath = "+filepath.Join(e.root, "inc.cfg")+"\n")
			t.Setenv("GIT_CONFIG_GLOBAL", global)
		},
		"global includeIf of a served file": func(t *testing.T, e *trustEnv) {
			writeFile(t, filepath.Join(e.root, "incif.cfg"), programs(e))
			global := filepath.Join(e.base, "global")
			writeFile(t, global, fmt.Sprintf("[includeIf \"gitdir:%s/\"]\n\tpath = %s\n", e.dir, filepath.Join(e.root, "incif.cfg")))
			t.Setenv("GIT_CONFIG_GLOBAL", global)
		},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			e := newTrustEnv(t)
			setup(t, e)
			g, _ := sdktest.Connect(t, git.New(), sdk.Host{Roots: []string{e.root}, Write: true})
			for _, tc := range everyTool {
				tried++
				res := tc.run(t, g)
				ok := true
				if ran := e.ran(t); len(ran) > 0 {
					t.Errorf("%s %v ran %v", tc.tool, tc.args, ran)
					ok = false
				}
				refuse := tc.tool == "git_add" || tc.tool == "git_commit" || tc.tool == "git_checkout" && tc.args["create"] != true
				switch {
				case refuse && (!res.IsError || !strings.Contains(res.Text(), "names filter drv")):
					t.Errorf("%s %v: want a refusal naming filter drv, got %q (error %v)", tc.tool, tc.args, res.Text(), res.IsError)
					ok = false
				case !refuse && res.IsError:
					t.Errorf("%s %v: error result: %s", tc.tool, tc.args, res.Text())
					ok = false
				}
				if ok {
					held++
				}
			}
		})
	}
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
