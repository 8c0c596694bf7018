// Package typescript carries the TypeScript plugin kit's sources (src/),
// which `ramabana-mcp plugin new --lang typescript` writes into a new
// plugin's folder as ramabana/: the kit travels with the plugin, and
// nothing of ours needs a registry. The kit itself is the npm package in
// this folder (package.json); this Go file only embeds it.
package typescript

import (
	"embed"
	"io/fs"
)

//go:embed src/*.ts
var files embed.FS

// Kit is the kit's sources, flat: the files of src/.
func Kit() fs.FS {
	sub, err := fs.Sub(files, "src")
	if err != nil {
		panic(err) // src is embedded above
	}
	return sub
}
