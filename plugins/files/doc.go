// Package files is the files tool group: read, list, create and edit text
// files inside the served folders.
//
// Its main is one call:
//
//	func main() { sdk.Serve(files.New()) }
//
// The plugin serves two groups. "files" (mounted by default) has view_file,
// list_files, create_file and replace_text; "exhash" (opt-in) has edit_file,
// which edits by line number and [LineHash] and rejects a whole batch when
// any anchor is stale.
//
// Every path goes through package roots: reads stay inside the served
// folders unless the host allows reads outside, writes always do. Writes
// are atomic (a temporary file in the same directory, synced, renamed over
// the original), keep the file's mode and its line endings, and are
// reported as [sdk.FileChange] with the absolute path and SHA-256 digests.
//
// A failure the model can act on (a bad path, a missing or binary file, a
// non-unique match, a stale hash) is an error result and changes nothing.
package files
