package notebook

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/plugins/internal/wording"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

const (
	defaultViewLimit = 100
	// maxPageBytes ends a page once passed; at least one cell is shown.
	maxPageBytes = 100 << 10
	// maxOutputChars bounds each output's text: its first and last halves
	// are shown.
	maxOutputChars = 2000
	// maxOutputsShown bounds the outputs shown per cell.
	maxOutputsShown = 30
)

type viewArgs struct {
	Path    string `json:"path" jsonschema:"notebook, relative to the first served folder"`
	Start   int    `json:"start,omitempty" jsonschema:"index of the first cell"`
	Limit   int    `json:"limit,omitempty" jsonschema:"most cells"`
	Outputs *bool  `json:"outputs,omitempty" jsonschema:"show code cells' outputs"`
}

var viewSpec = sdk.ToolSpec{
	Name:        "view_notebook",
	Title:       "View notebook",
	Kind:        sdk.KindRead,
	Description: `Show a Jupyter notebook (.ipynb) cell by cell: per cell a header "[index] id=... type", its source, and summaries of its outputs (images elided). A last line gives the start of the next page.`,
}

var viewSchema = sdk.LazySchemaFor[viewArgs](func(p map[string]*jsonschema.Schema) {
	intArg(p["start"], 0, 0)
	intArg(p["limit"], 1, defaultViewLimit)
	p["outputs"].Type, p["outputs"].Types = "boolean", nil
	p["outputs"].Default = []byte("true")
})

func (s *server) viewNotebook(_ context.Context, r *roots.Roots, args viewArgs) (*sdk.Result, error) {
	if args.Start < 0 || args.Limit < 0 {
		return nil, sdk.Failf("start and limit must not be negative (got start=%d, limit=%d)", args.Start, args.Limit)
	}
	t, err := resolveRead(r, args.Path)
	if err != nil {
		return nil, err
	}
	nb, err := loadNotebook(t, r.Rel(t.Abs))
	if err != nil {
		return nil, err
	}
	text, err := renderNotebook(nb, args.Start, cmp.Or(args.Limit, defaultViewLimit), args.Outputs == nil || *args.Outputs)
	if err != nil {
		return nil, err
	}
	return sdk.TextResult(text), nil
}

// renderNotebook is view_notebook's text for cells start.. of nb.
func renderNotebook(nb *notebook, start, limit int, outputs bool) (string, error) {
	n := nb.len()
	switch {
	case start > 0 && n == 0:
		return "", sdk.Failf("start=%d is past the last cell: %s has no cells", start, nb.display)
	case start > 0 && start >= n:
		return "", sdk.Failf("start=%d is past the last cell: %s has %s (indexes 0-%d)", start, nb.display, wording.Count(n, "cell"), n-1)
	}
	var b strings.Builder
	b.WriteString(notebookHeader(nb))
	if n == 0 {
		b.WriteString("\n\n(no cells)")
		return b.String(), nil
	}
	end := start
	var cell strings.Builder
	for end < n && end-start < limit {
		cell.Reset()
		renderCell(&cell, nb.cells.elems[end], end, outputs)
		if end > start && b.Len()+cell.Len() > maxPageBytes {
			break
		}
		b.WriteString("\n\n")
		b.WriteString(strings.TrimSuffix(cell.String(), "\n"))
		end++
	}
	if end < n || start > 0 {
		fmt.Fprintf(&b, "\n\n(cells %d-%d of %d shown", start, end-1, n)
		if end < n {
			fmt.Fprintf(&b, "; continue with start=%d", end)
		}
		b.WriteByte(')')
	}
	return b.String(), nil
}

// notebookHeader is the first line: path, format, size, kernel, language.
func notebookHeader(nb *notebook) string {
	meta := nb.doc.root.get("metadata")
	ks, li := meta.get("kernelspec"), meta.get("language_info")
	h := fmt.Sprintf("%s: nbformat %s, %s", nb.display, nb.version(), wording.Count(nb.len(), "cell"))
	switch name, display := ks.get("name").str(), ks.get("display_name").str(); {
	case name != "" && display != "":
		h += fmt.Sprintf("; kernel %q (%s)", display, name)
	case name != "" || display != "":
		h += "; kernel " + name + display
	default:
		h += "; kernel unknown"
	}
	lang := li.get("name").str()
	if lang == "" {
		lang = ks.get("language").str()
	}
	if lang != "" {
		h += "; language " + lang
		if v := li.get("version").str(); v != "" {
			h += " " + v
		}
	}
	if !nb.hasIDs() {
		h += fmt.Sprintf("; cells have no ids (nbformat %s): address them by index", nb.version())
	}
	return h
}

// renderCell writes one cell: header, source, attachments and outputs.
func renderCell(b *strings.Builder, c *node, index int, showOutputs bool) {
	typ := cellType(c)
	fmt.Fprintf(b, "[%d]", index)
	if id := cellID(c); id != "" {
		b.WriteString(" id=" + id)
	}
	b.WriteString(" " + typ)
	outputs := outputsOf(c)
	if typ == typeCode {
		ec := "null"
		if n := c.get("execution_count"); n != nil {
			ec = n.raw
		}
		b.WriteString(" execution_count=" + ec)
	}
	if tags := c.get("metadata").get("tags"); len(tags.items()) > 0 {
		names := make([]string, 0, len(tags.elems))
		for _, t := range tags.elems {
			names = append(names, t.str())
		}
		b.WriteString(" tags=" + strings.Join(names, ","))
	}
	if !showOutputs && len(outputs) > 0 {
		fmt.Fprintf(b, " (%s not shown)", wording.Count(len(outputs), "output"))
	}
	b.WriteByte('\n')

	if src := cellSource(c); src == "" {
		b.WriteString("(empty source)\n")
	} else {
		b.WriteString(src)
		if !strings.HasSuffix(src, "\n") {
			b.WriteByte('\n')
		}
	}
	for _, m := range c.get("attachments").membersOrNil() {
		for _, d := range m.val.membersOrNil() {
			fmt.Fprintf(b, "[attachment %s: %s, %s, elided]\n", m.key, d.key, humanSize(dataSize(d.key, d.val)))
		}
	}
	if showOutputs {
		renderOutputs(b, outputs)
	}
}

// items is an array's elements, nil for anything else.
func (n *node) items() []*node {
	if n == nil || n.kind != kindArray {
		return nil
	}
	return n.elems
}

// membersOrNil is an object's members, nil for anything else.
func (n *node) membersOrNil() []member {
	if n == nil || n.kind != kindObject {
		return nil
	}
	return n.members
}

// renderOutputs writes a code cell's outputs, consecutive stream outputs of
// the same stream joined as Jupyter shows them.
func renderOutputs(b *strings.Builder, outputs []*node) {
	shown := 0
	for i := 0; i < len(outputs); i++ {
		if shown == maxOutputsShown {
			fmt.Fprintf(b, "--- (%s more not shown)\n", wording.Count(len(outputs)-i, "output"))
			return
		}
		shown++
		o := outputs[i]
		switch typ := o.get("output_type").str(); typ {
		case "stream":
			name := o.get("name").str()
			text := o.get("text").text()
			for i+1 < len(outputs) && outputs[i+1].get("output_type").str() == "stream" && outputs[i+1].get("name").str() == name {
				i++
				text += outputs[i].get("text").text()
			}
			b.WriteString("--- " + cmp.Or(name, "stream") + "\n")
			writeText(b, clip(settleCR(stripANSI(text))))
		case "execute_result", "display_data", "update_display_data":
			label := "result"
			if typ != "execute_result" {
				label = "display"
			}
			b.WriteString("--- " + label + "\n")
			renderData(b, o.get("data"))
		case "error":
			b.WriteString("--- error\n")
			renderError(b, o)
		default:
			fmt.Fprintf(b, "--- %s\n[output of unknown type %q, elided]\n", typ, typ)
		}
	}
}

// renderData shows a mime bundle's text/plain and notes everything else.
func renderData(b *strings.Builder, data *node) {
	members := data.membersOrNil()
	if len(members) == 0 {
		b.WriteString("(no data)\n")
		return
	}
	if plain := data.get("text/plain"); plain != nil {
		writeText(b, clip(stripANSI(plain.text())))
	}
	for _, m := range members {
		if m.key != "text/plain" {
			fmt.Fprintf(b, "[%s output, %s, elided]\n", m.key, humanSize(dataSize(m.key, m.val)))
		}
	}
}

// renderError shows "ename: evalue" and the traceback's last frame.
func renderError(b *strings.Builder, o *node) {
	summary := stripANSI(o.get("ename").str())
	if v := stripANSI(o.get("evalue").str()); v != "" {
		summary += ": " + v
	}
	writeText(b, clip(summary))
	var lines []string
	for _, e := range o.get("traceback").items() {
		for l := range strings.SplitSeq(stripANSI(e.str()), "\n") {
			if l = strings.TrimRight(l, " \t\r"); strings.TrimSpace(l) != "" {
				lines = append(lines, l)
			}
		}
	}
	for _, l := range lastFrame(lines, summary) {
		writeText(b, clip(l))
	}
}

// lastFrame picks the lines that locate an error from a traceback whose
// ANSI codes are stripped and blank lines dropped: IPython's last "---->"
// line with the location line above it ("Cell In[3], line 2", "File
// x.py:5, in f()"), or else the last line that is not the summary, with a
// Python "File ..." line above it.
func lastFrame(lines []string, summary string) []string {
	isContext := func(l string) bool { // "      3 x = 1" around the arrow
		t := strings.TrimLeft(l, " ")
		d := strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' })
		return d > 0 && t[d] == ' '
	}
	isArrow := func(l string) bool { // "----> 5 f(x)", "---> 5" in IPython 7
		t := strings.TrimLeft(l, " ")
		n := len(t) - len(strings.TrimLeft(t, "-"))
		return n >= 2 && n < len(t) && t[n] == '>'
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if !isArrow(lines[i]) {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			if !isContext(lines[j]) && !isArrow(lines[j]) {
				return []string{strings.TrimSpace(lines[j]), lines[i]}
			}
		}
		return []string{lines[i]}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == summary || strings.Trim(l, "-") == "" || strings.HasPrefix(l, "Traceback (most recent call last)") {
			continue
		}
		if i > 0 && strings.HasPrefix(strings.TrimSpace(lines[i-1]), "File ") && !strings.HasPrefix(l, "File ") {
			return []string{strings.TrimSpace(lines[i-1]), lines[i]}
		}
		return []string{lines[i]}
	}
	return nil
}

// writeText writes s and ends it with a newline.
func writeText(b *strings.Builder, s string) {
	b.WriteString(s)
	if !strings.HasSuffix(s, "\n") {
		b.WriteByte('\n')
	}
}

// clip cuts text longer than maxOutputChars characters to about its first
// and last 1,000 characters, at line breaks when there is one near the cut,
// with a note of what was left out between them.
func clip(s string) string {
	const half = maxOutputChars / 2
	if len(s) <= maxOutputChars {
		return s
	}
	r := []rune(s)
	if len(r) <= maxOutputChars {
		return s
	}
	head, tail := r[:half], r[len(r)-half:]
	if i := slices.Index(tail, '\n'); i >= 0 && i < half/4 {
		tail = tail[i+1:]
	}
	if i := lastIndexRune(head, '\n'); i >= half-half/4 {
		head = head[:i+1]
	}
	mid := r[len(head) : len(r)-len(tail)]
	note := fmt.Sprintf("[… %s characters", thousands(len(mid)))
	if nl := strings.Count(string(mid), "\n"); nl > 0 {
		note += fmt.Sprintf(" (%s)", wording.Count(nl, "line"))
	}
	note += fmt.Sprintf(" elided; the output has %s characters …]", thousands(len(r)))
	out := string(head)
	if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out + note + "\n" + string(tail)
}

func lastIndexRune(r []rune, c rune) int {
	for i := len(r) - 1; i >= 0; i-- {
		if r[i] == c {
			return i
		}
	}
	return -1
}

// thousands formats n with commas: 12,345.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// stripANSI removes terminal escape sequences: CSI (colours, cursor moves),
// OSC (titles, links) and other escapes (ESC ( B).
func stripANSI(s string) string {
	if strings.IndexByte(s, 0x1b) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) {
			break
		}
		switch s[i+1] {
		case '[': // CSI: parameters and intermediates, then a final byte
			j := i + 2
			for j < len(s) && s[j] >= 0x20 && s[j] <= 0x3f {
				j++
			}
			for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
				j++
			}
			i = j // the final byte, skipped by the loop
		case ']': // OSC: up to BEL or ESC '\'
			j := i + 2
			for j < len(s) && s[j] != 0x07 && !(s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\') {
				j++
			}
			if j < len(s) && s[j] == 0x1b {
				j++
			}
			i = j
		default: // ESC, intermediates ("(" in ESC ( B), a final byte
			j := i + 1
			for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
				j++
			}
			i = j
		}
	}
	return b.String()
}

// settleCR shows each line as a terminal leaves it after carriage returns
// (progress bars redraw themselves with "\r"): only the text after a line's
// last "\r" is kept. "\r\n" ends a line.
func settleCR(s string) string {
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, "\r")
		if j := strings.LastIndexByte(l, '\r'); j >= 0 {
			l = l[j+1:]
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// isTextMIME reports whether nbformat stores a mime type's data as text
// (or JSON) rather than base64.
func isTextMIME(mime string) bool {
	return strings.HasPrefix(mime, "text/") || mime == "image/svg+xml" ||
		mime == "application/json" || strings.HasSuffix(mime, "+json") ||
		mime == "application/javascript"
}

// dataSize is the size in bytes of a mime bundle entry: base64 data
// decoded, text as UTF-8, JSON as written compactly.
func dataSize(mime string, v *node) int {
	switch v.kind {
	case kindString, kindArray:
		if v.kind == kindArray && len(v.elems) > 0 && v.elems[0].kind != kindString {
			break
		}
		t := v.text()
		if isTextMIME(mime) {
			return len(t)
		}
		n, pad := 0, 0
		for i := 0; i < len(t); i++ {
			switch c := t[i]; {
			case c == '=':
				pad++
				n++
			case c != '\n' && c != '\r' && c != ' ':
				n++
			}
		}
		return max(0, n/4*3-pad)
	}
	compact := style{itemSep: ",", keySep: ":"}
	return len(compact.appendNode(nil, v, 0))
}

// humanSize is "812 B", "12.3 KB", "4.1 MB" (1 KB = 1024 bytes).
func humanSize(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
}
