// Package code is the code tool group: search file contents, outline and
// find symbols with a real parser, and inspect Python objects live.
//
// Its main is one call:
//
//	func main() { sdk.Serve(code.New()) }
//
// The group "code" (mounted by default) has four tools:
//
//   - search_code (read): a ripgrep-like regexp or literal search, gitignore
//     aware (package ignore), in parallel on runtime.NumCPU workers, with
//     grep-style output sorted by path and line.
//   - outline (read): the symbols one file (or each file of a directory)
//     declares, nested, with line ranges and one-line signatures.
//   - find_symbol (read): declarations by name or name path ("Server/Run")
//     across a tree, optionally with their source.
//   - inspect_python (act): python3 imports a dotted name and reports its
//     kind, signature, docstring, source location and members.
//
// Symbols come from tree-sitter grammars (github.com/smacker/go-tree-sitter,
// cgo) for Go, Python, JavaScript, TypeScript and TSX; every language maps
// its declarations onto one set of kinds (function, method, class, ...),
// so a kind filter means the same everywhere. A build without cgo has no
// tree-sitter: it reads Go sources with go/parser, into the same symbols
// (a test compares the two on this module), and outline and find_symbol
// answer that other languages need a cgo build.
//
// Scans of many files run through one pipeline (scanOrdered): the walk
// hands files in lexical order to the workers, and results are collected in
// that order, so output is the same as a sequential scan's. When a result
// cap is reached the collector sets a limit a fixed number of files ahead
// (to count what was left out), and neither the walk nor the workers go
// past it: a capped search stops early yet says the same thing every run.
//
// search_code finds the lines that match, grep's way, without running the
// regexp on every line: a literal that every match must contain is taken
// from the parsed regexp and looked for with bytes.Index (ASCII case
// folded when case is ignored), and only the lines holding it are matched;
// patterns without such a literal run the regexp over the whole file at
// once. Files are read with raw system calls into a buffer each worker
// reuses.
//
// Every path goes through package roots; reads stay inside the served
// folders unless the host allows reads outside, and symlinks found in a
// walk are followed only to regular files inside the served folders.
// Failures a model can act on (a bad pattern, path or name; a module that
// does not import; a timeout) are error results.
//
// Every process of the server's binary links every bundled group and runs
// its package init, so what is costly to make is made at its first use:
// the input schemas (sdk.LazySchemaFor) by the first New, dottedName's
// regexp (its Unicode classes) by the first inspect_python call.
package code
