package pluginstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ramabana/ramabana-mcp/internal/launch"
	"github.com/ramabana/ramabana-mcp/internal/proctest"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// testPlugin is internal/testplugin, built once: a working plugin named
// "echo", or "shadow" when run as ramabana-plugin-shadow.
var testPlugin string

func TestMain(m *testing.M) {
	// go-plugin hands plugins the host's stdin; the SDK's plugins exit when
	// a stdin pipe reaches EOF. Give them /dev/null, whatever runs the tests.
	if devNull, err := os.Open(os.DevNull); err == nil {
		os.Stdin = devNull
	}
	proctest.RunWithTestPlugin(m, "testplugin", func(path string) { testPlugin = path })
}

// describe launches binary for real with the server's launcher and
// describes it.
func describe(ctx context.Context, binary string) (*Description, error) {
	d, protocol, err := launch.Describe(ctx, launch.Command{Name: filepath.Base(binary), Path: binary}, sdk.Host{},
		launch.Options{Env: launch.Environ(os.Environ(), nil), StartTimeout: time.Minute})
	if err != nil {
		return nil, err
	}
	return Summarize(d, protocol), nil
}

// pluginAs copies the test plugin to a temp dir under the name mode, which
// picks its behaviour, and appends extra bytes (which change its hash, not
// what it does).
func pluginAs(t *testing.T, mode string, extra string) string {
	t.Helper()
	b, err := os.ReadFile(testPlugin)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), FilePrefix+mode)
	if err := os.WriteFile(path, append(b, extra...), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func openStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "plugins"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func install(t *testing.T, s *Store, path string) Entry {
	t.Helper()
	e, err := s.Install(context.Background(), path, describe)
	if err != nil {
		t.Fatalf("install %s: %v", path, err)
	}
	return e
}

func sha(t *testing.T, path string) string {
	t.Helper()
	sum, err := FileSHA256(path)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func appendByte(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte{0}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// dirNames lists a dir's file names; nil when it does not exist.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
