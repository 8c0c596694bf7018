package supervise

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ramabana/ramabana-mcp/host/internal/pluginstore"
	"github.com/ramabana/ramabana-mcp/internal/launch"
	"github.com/ramabana/ramabana-mcp/internal/schema"
)

// PluginPrefix starts the file name of every plugin binary in a plugin dir:
// ramabana-plugin-<name>, as the store installs them.
const PluginPrefix = pluginstore.FilePrefix

// Source says where a plugin comes from and how to start it.
type Source struct {
	// Name is the plugin's name: from the binary's file name, or the bundled
	// group's name.
	Name string
	// Path is the executable; Args follow it.
	Path string
	Args []string
	// Bundled plugins are served by re-executing the host binary.
	Bundled bool
}

// command is what launches the source.
func (s Source) command() launch.Command {
	return launch.Command{Name: s.Name, Path: s.Path, Args: s.Args, Bundled: s.Bundled}
}

func (s Source) String() string {
	if s.Bundled {
		return "bundled"
	}
	return s.Path
}

// Discover lists the plugins to start: the bundled groups, served by
// re-executing self as `self plugin serve <name>`, then every
// ramabana-plugin-<name> executable in dirs. A binary overrides a bundled
// plugin of the same name; among dirs, the first one that has a name wins.
// Missing dirs are skipped; a dir that cannot be read is an error for that
// dir only.
func Discover(self string, bundled []string, dirs []string) ([]Source, []error) {
	byName := map[string]Source{}
	for _, name := range bundled {
		byName[name] = Source{Name: name, Path: self, Args: []string{"plugin", "serve", name}, Bundled: true}
	}
	var errs []error
	seen := map[string]bool{}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("read plugin dir: %w", err))
			continue
		}
		for _, e := range entries {
			name, ok := strings.CutPrefix(e.Name(), PluginPrefix)
			if !ok || seen[name] {
				continue
			}
			if !schema.ValidName(name) {
				errs = append(errs, fmt.Errorf("plugin %q: name must be lower-case letters, digits and '-'", filepath.Join(dir, e.Name())))
				continue
			}
			path := filepath.Join(dir, e.Name())
			fi, err := os.Stat(path) // follows links: a linked binary is fine
			if err != nil {
				errs = append(errs, fmt.Errorf("plugin %q: %w", path, err))
				continue
			}
			if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
				errs = append(errs, fmt.Errorf("plugin %q: not an executable file", path))
				continue
			}
			seen[name] = true
			byName[name] = Source{Name: name, Path: path}
		}
	}
	out := make([]Source, 0, len(byName))
	for _, s := range byName {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, errs
}

// DefaultPluginDirs are the dirs searched after --plugins:
// $RAMABANA_PLUGIN_PATH (a list like $PATH), then configDir/plugins.
func DefaultPluginDirs(configDir string) []string {
	var dirs []string
	if env := os.Getenv("RAMABANA_PLUGIN_PATH"); env != "" {
		dirs = append(dirs, filepath.SplitList(env)...)
	}
	if configDir != "" {
		dirs = append(dirs, filepath.Join(configDir, "plugins"))
	}
	return dirs
}
