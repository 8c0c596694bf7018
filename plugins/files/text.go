package files

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"unsafe"

	"github.com/ramabana/ramabana-mcp/plugins/internal/atomicfile"
	"github.com/ramabana/ramabana-mcp/plugins/internal/hashline"
	"github.com/ramabana/ramabana-mcp/plugins/internal/textenc"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// LineHash is the hash view_file shows for a line and edit_file checks: 4
// lowercase hex digits of the 32-bit FNV-1a hash of the line's content,
// without its line ending ("\n" or "\r\n"), folded to 16 bits as the xor of
// its high and low halves. A line without an ending (the last line of a file
// that lacks a final newline) hashes as is. It is the same as
// hashline.Hash (package plugins/internal/hashline, the home of the
// "lineno|hash|content" format).
func LineHash(line string) string { return hashline.Hash(line) }

// viewPrefix finds the first line of text that starts with view_file's
// "<lineno>|<hash>|" prefix (digits, a bar, 4 hex digits, a bar). It
// returns the line's number in text (1-based) and the prefix, or 0 and ""
// when no line has one. The prefixes are view_file's display, not file
// content: the write tools refuse new text that carries them, and
// replace_text names them when old text is not found.
func viewPrefix(text string) (int, string) {
	for n := 1; text != ""; n++ {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if p := hashline.Prefix(line); p != "" {
			return n, p
		}
	}
	return 0, ""
}

// prefixProblem says why the argument arg, whose line n starts with
// view_file's prefix p, is refused.
func prefixProblem(arg string, n int, p string) string {
	return fmt.Sprintf("line %d of %s starts with %q, view_file's \"lineno|hash|\" prefix; the prefixes are view_file's display, not the file's content: send the lines without them", n, arg, p)
}

// splitLines cuts s into lines, each keeping its ending; a final line
// without an ending is kept too. The slices share s's memory.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := make([]string, 0, strings.Count(s, "\n")+1)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

// content strips a line's ending.
func content(line string) string {
	if strings.HasSuffix(line, "\n") {
		return strings.TrimSuffix(line[:len(line)-1], "\r")
	}
	return line
}

// ending returns a line's ending: "\r\n", "\n" or "".
func ending(line string) string {
	switch {
	case strings.HasSuffix(line, "\r\n"):
		return "\r\n"
	case strings.HasSuffix(line, "\n"):
		return "\n"
	}
	return ""
}

// detectEOL is the file's line ending, decided by its first line: "\r\n"
// if that line ends so, else "\n" (also for a file without any newline).
func detectEOL[T string | []byte](data T) string {
	for i := 0; i < len(data); i++ {
		if data[i] == '\n' {
			if i > 0 && data[i-1] == '\r' {
				return "\r\n"
			}
			return "\n"
		}
	}
	return "\n"
}

// toEOL rewrites every line ending in s to eol.
func toEOL(s, eol string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if eol == "\r\n" {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	return s
}

// countLines is the number of lines as view_file numbers them.
func countLines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// maxFileSize bounds the files the tools read whole.
const maxFileSize = 256 << 20

// file is a regular text file read whole.
type file struct {
	display string
	// enc is the file's encoding; text its content as UTF-8, without a
	// byte order mark (the edit tools keep it in place, and view_file
	// neither shows nor hashes it).
	enc  textenc.Encoding
	text []byte
}

// readFile reads a regular file for tool through its Target and decodes
// it, refusing directories, missing files, oversized and binary files with
// tool errors. The checks are made on the opened file, not on its path.
func readFile(t *roots.Target, display, tool string) (*file, error) {
	f, err := t.Open()
	if err != nil {
		return nil, openFailure(err, display)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, sdk.Failf("cannot read %s: %v", display, unwrapPath(err))
	}
	if err := checkFile(fi, display, tool); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, sdk.Failf("cannot read %s: %v", display, unwrapPath(err))
	}
	enc, text, err := decodeText(data, display, tool)
	if err != nil {
		return nil, err
	}
	return &file{display: display, enc: enc, text: text}, nil
}

// openFailure is the tool error for a file that cannot be opened.
func openFailure(err error, display string) error {
	if errors.Is(err, fs.ErrNotExist) {
		return sdk.Failf("%s does not exist", display)
	}
	return sdk.Failf("cannot read %s: %v", display, unwrapPath(err))
}

// checkFile refuses what the tools do not read: directories, special
// files, files over maxFileSize.
func checkFile(fi fs.FileInfo, display, tool string) error {
	switch {
	case fi.IsDir():
		return sdk.Failf("%s is a directory; %s works on files (use list_files to see what it holds)", display, tool)
	case !fi.Mode().IsRegular():
		return sdk.Failf("%s is not a regular file (%s)", display, fi.Mode().Type())
	case fi.Size() > maxFileSize:
		return sdk.Failf("%s is too large (%d bytes); %s reads files up to %d MiB", display, fi.Size(), tool, maxFileSize>>20)
	}
	return nil
}

// decodeText returns data, a file's content, as UTF-8 without a byte order
// mark, and its encoding (see package textenc); binary and oversized
// content is refused.
func decodeText(data []byte, display, tool string) (textenc.Encoding, []byte, error) {
	if len(data) > maxFileSize {
		return 0, nil, sdk.Failf("%s is too large (over %d MiB); %s reads files up to %d MiB", display, maxFileSize>>20, tool, maxFileSize>>20)
	}
	enc, err := textenc.Detect(data)
	if err != nil {
		return 0, nil, sdk.Failf("%s is a binary file (%d bytes); %s works on text files only", display, len(data), tool)
	}
	text, err := enc.Decode(data)
	if err != nil {
		return 0, nil, sdk.Failf("cannot read %s as %s text: %v", display, enc, err)
	}
	return enc, text, nil
}

// encodingNote is the line view_file puts before the lines of a file it
// shows converted, "" for UTF-8.
func encodingNote(enc textenc.Encoding) string {
	if !enc.Converted() {
		return ""
	}
	return fmt.Sprintf("(encoding %s, shown as UTF-8; edits are written back in %s)", enc, enc)
}

// update runs a read-modify-write of the text file t for tool under the
// file's lock (atomicfile.Update): edit gets the current content, checked
// and decoded as readFile does it (UTF-8, without a byte order mark), and
// returns the new content or a tool error. The new content is written in
// the file's own encoding, its byte order mark first; a character that
// encoding cannot hold is a tool error and nothing is written. update
// returns the file's bytes before and after. Failures are tool errors; a
// change by another program meanwhile is refused, never lost. When ctx
// ends first (the call was cancelled), ctx's error is returned and nothing
// is written.
func update(ctx context.Context, t *roots.Target, display, tool string, edit func(text string) (string, error)) (before, after []byte, err error) {
	dir, name, err := t.Parent(false)
	if err != nil {
		return nil, nil, openFailure(err, display)
	}
	defer dir.Close()
	err = atomicfile.Update(ctx, dir, name,
		func(fi fs.FileInfo) error { return checkFile(fi, display, tool) },
		func(cur []byte, _ fs.FileInfo) ([]byte, error) {
			enc, text, err := decodeText(cur, display, tool)
			if err != nil {
				return nil, err
			}
			// text is not changed, nor kept past the call.
			out, err := edit(bytesToString(text))
			if err != nil {
				return nil, err
			}
			data, err := enc.Encode(out)
			if ue := (*textenc.UnencodableError)(nil); errors.As(err, &ue) {
				return nil, sdk.Failf("%s changed nothing: %s is %s text, which cannot hold %q (%U), on line %d of the new content; use characters %s has, or rewrite the file as UTF-8 with create_file",
					tool, display, enc, ue.Rune, ue.Rune, ue.Line, enc)
			}
			if err != nil {
				return nil, sdk.Failf("%s changed nothing: cannot write %s as %s: %v", tool, display, enc, err)
			}
			before, after = cur, data
			return data, nil
		})
	if err != nil {
		return nil, nil, atomicfile.Failure(err, display, "read it again")
	}
	return before, after, nil
}

// unwrapPath drops the absolute path an *fs.PathError repeats.
func unwrapPath(err error) error {
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// bytesToString makes a string of b without copying; b must not change
// afterwards.
func bytesToString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}
