// Package python carries the Python plugin kit's package,
// ramabana_plugin/, which `ramabana-mcp plugin new --lang python` writes
// into a new plugin's folder: the kit travels with the plugin, and nothing
// of ours needs a registry. The kit itself is the Python package in this
// folder (pyproject.toml); this Go file only embeds it.
package python

import (
	"embed"
	"io/fs"
)

//go:embed ramabana_plugin/*.py
var files embed.FS

// Kit is the kit's package, flat: the files of ramabana_plugin/.
func Kit() fs.FS {
	sub, err := fs.Sub(files, "ramabana_plugin")
	if err != nil {
		panic(err) // ramabana_plugin is embedded above
	}
	return sub
}
