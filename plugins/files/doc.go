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
// Text is UTF-8 (with or without a byte order mark), UTF-16 with a byte
// order mark, windows-1252 or ISO-8859-1, as package textenc detects it;
// anything else is binary and refused. view_file shows text as UTF-8 (with
// a note naming any other encoding) and hashes the lines it shows;
// edit_file and replace_text edit that UTF-8 text and write it back in the
// file's own encoding, its byte order mark kept, refusing a character the
// encoding cannot hold. create_file writes its content as given, in UTF-8:
// it is the whole file, so overwriting a file in another encoding converts
// it, and the result says so.
//
// A failure the model can act on (a bad path, a missing or binary file, a
// non-unique match, a stale hash) is an error result and changes nothing.
package files
