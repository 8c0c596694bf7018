// Package lsp is the bundled "lsp" group: code intelligence answered by
// the language servers users already have (gopls; pyright or basedpyright;
// typescript-language-server with typescript), for the served folders.
//
// Tools: find_references, find_definition, symbol_info (hover) and
// diagnostics read; rename_symbol, replace_symbol_body,
// insert_before_symbol and insert_after_symbol write. A symbol is named by
// file and name path ("Server/Run"), by file and line, or both. Lines are
// shown as view_file shows them ("lineno|hash|content", package
// hashline), paths relative to the first served folder.
//
// Servers. One process per served folder and language, started at the
// first call that needs it (its progress reported to that call), kept
// warm, started again at the next call after it ends, and stopped once
// unused for the idle time ("idle_seconds" in the "lsp" entry of
// config.json, 10 minutes by default; 0 keeps it). The config may name
// each language's command; otherwise the usual names are looked up on
// PATH. A language without a server gets an error naming what to install,
// and find_definition and symbol_info then answer with the declarations
// tree-sitter finds by name (the code group's find_symbol), said as such.
//
// Keeping the server current. Before each call the group scans the served
// folder for files of the server's language and its build files
// (gitignore-aware, within a budget) and tells the server what changed on
// disk since it last looked (workspace/didChangeWatchedFiles): other
// tools and programs change files, and servers keep what they read of
// files that are not open. The call's own file is opened with its current
// content. Diagnostics are pulled (textDocument/diagnostic) from servers
// that answer it, gopls told to; from the others, the last publication for
// the file's current content, settled.
//
// Edits. A rename's WorkspaceEdit, and the symbol edits, are applied here,
// never by the server: every file must lie inside the served folders, and
// must still hold the content the edit was computed on (an open
// document's text and version, or the file as the server was last told
// of it), checked under the file's lock; the files are then written all
// or none (atomicfile.UpdateAll). A file changed meanwhile refuses the
// whole edit, as a stale line hash refuses an edit_file; so does a rename
// edit whose old text is not the old name, and an edit of a file of
// another language or in a .git folder. The changes go
// to the activity feed, and the server is told of them.
//
// Trust. Repository content must not make a language server run the
// repository's programs unless the user allowed commands (the shell group
// is mounted, sdk.Host.Commands). Until then: PATH keeps only absolute
// folders outside the served ones (an activated virtual environment's bin
// goes), variables naming code inside them go (VIRTUAL_ENV, PYTHONPATH,
// GOENV, NODE_PATH and the like, and NODE_OPTIONS that load code); the Go
// toolchain is pinned to the local one (GOTOOLCHAIN=local, so a go.mod's
// toolchain line cannot start another); typescript-language-server gets
// the tsserver installed beside it, never the workspace's
// node_modules/typescript (one it would not take, it would fall back
// from, so that is refused), with automatic typings acquisition (npm)
// off, and tsserver loads tsconfig plugins only from its own install;
// pyright is given the system's Python, found past shims, run once
// isolated. A command naming anything inside the served folders, or a
// tsserver there, is refused. Every
// server runs sandboxed as shell commands are (package sandbox): no
// capabilities, a pid namespace of its own, writes only to its private
// cache folder (XDG_CACHE_HOME and TMPDIR point there) and the device
// files, and, until commands are allowed, execution only of the system's
// folders, the Go toolchain, node, the chosen Python and the server's own
// program (a folder holding a served one is left out). Reads are not
// restricted: hover and diagnostics may quote what the project's
// configuration points a server at outside the served folders.
package lsp
