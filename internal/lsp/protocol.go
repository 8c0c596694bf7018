package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// This file holds the subset of the protocol the client speaks: its types,
// decoded from every form servers answer in, and the typed requests.

// Position is a place in a document: a zero-based line, and a zero-based
// character counted in the units of the connection's Encoding.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is the span from Start up to End, End excluded.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Location is a range in a document.
type Location struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

// LocationLink is a definition's place: TargetSelectionRange is its name,
// TargetRange the whole declaration (doc comment and body included, as the
// server sees it), OriginSelectionRange the span asked about, when known.
type LocationLink struct {
	OriginSelectionRange *Range `json:"originSelectionRange,omitempty"`
	TargetURI            string `json:"targetUri"`
	TargetRange          Range  `json:"targetRange"`
	TargetSelectionRange Range  `json:"targetSelectionRange"`
}

// TextEdit replaces Range with NewText.
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// TextDocumentEdit is edits of one document at a version.
type TextDocumentEdit struct {
	TextDocument struct {
		URI string `json:"uri"`
		// Version is the document version the edits apply to; nil:
		// the content on disk.
		Version *int32 `json:"version"`
	} `json:"textDocument"`
	Edits []TextEdit `json:"edits"`
}

// ResourceOperation is a file creation, rename or deletion in an edit.
type ResourceOperation struct {
	Kind   string `json:"kind"` // "create", "rename" or "delete"
	URI    string `json:"uri,omitempty"`
	OldURI string `json:"oldUri,omitempty"`
	NewURI string `json:"newUri,omitempty"`
}

// WorkspaceEdit is a change to many documents, in either of LSP's forms:
// Changes (edits by URI) or DocumentChanges (edits with document
// versions), which wins when both are given. ResourceOperations are the
// file operations found among the document changes; a Client does not
// offer them, so a conforming server sends none. FileEdits turns an edit
// into byte-offset edits per file.
type WorkspaceEdit struct {
	Changes            map[string][]TextEdit
	DocumentChanges    []TextDocumentEdit
	ResourceOperations []ResourceOperation
}

func (w *WorkspaceEdit) UnmarshalJSON(b []byte) error {
	var raw struct {
		Changes         map[string][]TextEdit `json:"changes"`
		DocumentChanges []json.RawMessage     `json:"documentChanges"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*w = WorkspaceEdit{Changes: raw.Changes}
	for _, dc := range raw.DocumentChanges {
		var probe struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(dc, &probe); err != nil {
			return err
		}
		if probe.Kind != "" {
			var op ResourceOperation
			if err := json.Unmarshal(dc, &op); err != nil {
				return err
			}
			w.ResourceOperations = append(w.ResourceOperations, op)
			continue
		}
		var e TextDocumentEdit
		if err := json.Unmarshal(dc, &e); err != nil {
			return err
		}
		w.DocumentChanges = append(w.DocumentChanges, e)
	}
	return nil
}

// DiagnosticSeverity ranks a Diagnostic: 1 error, 2 warning, 3
// information, 4 hint; 0 when the server did not say.
type DiagnosticSeverity int

// The severities.
const (
	SeverityError       DiagnosticSeverity = 1
	SeverityWarning     DiagnosticSeverity = 2
	SeverityInformation DiagnosticSeverity = 3
	SeverityHint        DiagnosticSeverity = 4
)

func (s DiagnosticSeverity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	case SeverityInformation:
		return "information"
	case SeverityHint:
		return "hint"
	}
	return "severity " + strconv.Itoa(int(s))
}

// Diagnostic is one problem a server found.
type Diagnostic struct {
	Range    Range              `json:"range"`
	Severity DiagnosticSeverity `json:"severity,omitempty"`
	// Code is the server's code for the problem, a number or a string.
	Code    IntOrString `json:"code,omitempty"`
	Source  string      `json:"source,omitempty"`
	Message string      `json:"message"`
}

// IntOrString is a JSON number or string, kept as its text.
type IntOrString string

func (s *IntOrString) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, (*string)(s))
	}
	if string(b) == "null" {
		*s = ""
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	*s = IntOrString(n)
	return nil
}

// FileDiagnostics is the latest textDocument/publishDiagnostics for a
// document.
type FileDiagnostics struct {
	URI string
	// Version is the document version the diagnostics are for, when the
	// server said.
	Version     *int32
	Diagnostics []Diagnostic
	// Seq counts the publications for this document so far, this one
	// included.
	Seq uint64
}

// MarkupContent is text in Kind "markdown" or "plaintext".
type MarkupContent struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

// Hover is a symbol's type and documentation. Contents is the server's
// answer in whichever form it came: MarkupContent as is; MarkedStrings
// (the deprecated forms) joined into one markdown text, each with a
// language as a fenced code block.
type Hover struct {
	Contents MarkupContent
	Range    *Range
}

func (h *Hover) UnmarshalJSON(b []byte) error {
	var raw struct {
		Contents json.RawMessage `json:"contents"`
		Range    *Range          `json:"range"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	h.Range = raw.Range
	c := bytes.TrimSpace(raw.Contents)
	if len(c) > 0 && c[0] == '{' {
		var mc struct {
			Kind     *string `json:"kind"`
			Language string  `json:"language"`
			Value    string  `json:"value"`
		}
		if err := json.Unmarshal(c, &mc); err != nil {
			return err
		}
		if mc.Kind != nil {
			h.Contents = MarkupContent{Kind: *mc.Kind, Value: mc.Value}
			return nil
		}
	}
	var items []json.RawMessage
	if len(c) > 0 && c[0] == '[' {
		if err := json.Unmarshal(c, &items); err != nil {
			return err
		}
	} else if len(c) > 0 && string(c) != "null" {
		items = []json.RawMessage{c}
	}
	var parts []string
	for _, it := range items {
		var s string
		if err := json.Unmarshal(it, &s); err == nil {
			parts = append(parts, s)
			continue
		}
		var ms struct {
			Language string `json:"language"`
			Value    string `json:"value"`
		}
		if err := json.Unmarshal(it, &ms); err != nil {
			return fmt.Errorf("lsp: hover contents: %w", err)
		}
		parts = append(parts, "```"+ms.Language+"\n"+ms.Value+"\n```")
	}
	h.Contents = MarkupContent{Kind: "markdown", Value: strings.Join(parts, "\n\n")}
	return nil
}

// SymbolKind is the kind of a symbol (LSP's numbering: 5 class, 12
// function, and so on).
type SymbolKind int

var symbolKinds = []string{"", "file", "module", "namespace", "package", "class", "method", "property",
	"field", "constructor", "enum", "interface", "function", "variable", "constant", "string",
	"number", "boolean", "array", "object", "key", "null", "enum member", "struct", "event",
	"operator", "type parameter"}

// The kinds a Client accepts.
const (
	KindFile          SymbolKind = 1
	KindClass         SymbolKind = 5
	KindMethod        SymbolKind = 6
	KindField         SymbolKind = 8
	KindInterface     SymbolKind = 11
	KindFunction      SymbolKind = 12
	KindVariable      SymbolKind = 13
	KindConstant      SymbolKind = 14
	KindStruct        SymbolKind = 23
	KindTypeParameter SymbolKind = 26
)

func (k SymbolKind) String() string {
	if k > 0 && int(k) < len(symbolKinds) {
		return symbolKinds[k]
	}
	return "kind " + strconv.Itoa(int(k))
}

// DocumentSymbol is a symbol of a document: Range spans its whole
// declaration, SelectionRange its name. A server answering in the flat
// SymbolInformation form gives no hierarchy: each symbol then comes as a
// DocumentSymbol without children whose Range and SelectionRange are both
// its location's range, and ContainerName names its parent.
type DocumentSymbol struct {
	Name           string           `json:"name"`
	Detail         string           `json:"detail,omitempty"`
	Kind           SymbolKind       `json:"kind"`
	Range          Range            `json:"range"`
	SelectionRange Range            `json:"selectionRange"`
	Children       []DocumentSymbol `json:"children,omitempty"`
	ContainerName  string           `json:"containerName,omitempty"`
}

// SymbolInformation is a symbol of the workspace. A server answering with
// WorkspaceSymbols that name only a document leaves Location.Range zero.
type SymbolInformation struct {
	Name          string     `json:"name"`
	Kind          SymbolKind `json:"kind"`
	Location      Location   `json:"location"`
	ContainerName string     `json:"containerName,omitempty"`
}

// PrepareRenameResult is what prepareRename says of a position that can be
// renamed: the range of the name, and the text to propose, or
// DefaultBehavior when the server leaves the choice of range to the client.
type PrepareRenameResult struct {
	Range           Range
	Placeholder     string
	DefaultBehavior bool
}

type textDocumentPosition struct {
	TextDocument textDocumentID `json:"textDocument"`
	Position     Position       `json:"position"`
}

type textDocumentID struct {
	URI string `json:"uri"`
}

func at(uri string, pos Position) textDocumentPosition {
	return textDocumentPosition{TextDocument: textDocumentID{URI: uri}, Position: pos}
}

// isNull reports whether a result is absent or JSON null.
func isNull(b json.RawMessage) bool {
	b = bytes.TrimSpace(b)
	return len(b) == 0 || string(b) == "null"
}

// DidOpen tells the server a document is open with text; the server then
// takes its content from the client rather than the disk, until DidClose.
// The document starts at version 1. Opening an open document is an error.
func (c *Client) DidOpen(uri, languageID string, text []byte) error {
	c.docMu.Lock()
	defer c.docMu.Unlock()
	key := uriKey(uri)
	if _, ok := c.docs[key]; ok {
		return fmt.Errorf("lsp: %s is already open", uri)
	}
	seq := c.diagSeq(key)
	err := c.conn.notify("textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": uri, "languageId": languageID, "version": 1, "text": string(text)},
	})
	if err == nil {
		c.setDoc(key, document{uri: uri, version: 1, sentSeq: seq})
	}
	return err
}

// DidChange replaces an open document's text (full-text sync, which every
// server accepts) and returns its new version.
func (c *Client) DidChange(uri string, text []byte) (int32, error) {
	c.docMu.Lock()
	defer c.docMu.Unlock()
	key := uriKey(uri)
	d, ok := c.doc(key)
	if !ok {
		return 0, fmt.Errorf("lsp: %s is not open", uri)
	}
	seq := c.diagSeq(key)
	err := c.conn.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": d.uri, "version": d.version + 1},
		"contentChanges": []map[string]string{{"text": string(text)}},
	})
	if err != nil {
		return 0, err
	}
	d.version++
	d.sentSeq = seq
	c.setDoc(key, d)
	return d.version, nil
}

// DidClose tells the server the document is closed: its content is the
// disk's again.
func (c *Client) DidClose(uri string) error {
	c.docMu.Lock()
	defer c.docMu.Unlock()
	key := uriKey(uri)
	d, ok := c.doc(key)
	if !ok {
		return fmt.Errorf("lsp: %s is not open", uri)
	}
	c.setDoc(key, document{})
	return c.conn.notify("textDocument/didClose", map[string]any{"textDocument": textDocumentID{URI: d.uri}})
}

// FileChangeType is what happened to a file: created, changed or deleted.
type FileChangeType int

// The file change types.
const (
	FileCreated FileChangeType = 1
	FileChanged FileChangeType = 2
	FileDeleted FileChangeType = 3
)

// FileEvent is a change to a file on disk.
type FileEvent struct {
	URI  string         `json:"uri"`
	Type FileChangeType `json:"type"`
}

// DidChangeWatchedFiles tells the server files changed on disk
// (workspace/didChangeWatchedFiles). The client watches nothing itself:
// whoever changes files (or watches them) says so, or servers that cache
// what they read (gopls does) keep answering from the old content of
// files that are not open.
func (c *Client) DidChangeWatchedFiles(events ...FileEvent) error {
	return c.conn.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": events})
}

// References lists the places that refer to the symbol at pos, its
// declaration among them when includeDeclaration.
func (c *Client) References(ctx context.Context, uri string, pos Position, includeDeclaration bool) ([]Location, error) {
	params := struct {
		textDocumentPosition
		Context struct {
			IncludeDeclaration bool `json:"includeDeclaration"`
		} `json:"context"`
	}{textDocumentPosition: at(uri, pos)}
	params.Context.IncludeDeclaration = includeDeclaration
	var locs []Location
	err := c.Call(ctx, "textDocument/references", params, &locs)
	return locs, err
}

// Definition lists where the symbol at pos is defined. Servers answering
// with plain Locations give no declaration range: TargetRange is then the
// location's range too.
func (c *Client) Definition(ctx context.Context, uri string, pos Position) ([]LocationLink, error) {
	var raw json.RawMessage
	if err := c.Call(ctx, "textDocument/definition", at(uri, pos), &raw); err != nil || isNull(raw) {
		return nil, err
	}
	raw = bytes.TrimSpace(raw)
	items := []json.RawMessage{raw}
	if raw[0] == '[' {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Errorf("lsp: definition: %w", err)
		}
	}
	links := make([]LocationLink, 0, len(items))
	for _, it := range items {
		var either struct {
			LocationLink
			Location
		}
		if err := json.Unmarshal(it, &either); err != nil {
			return nil, fmt.Errorf("lsp: definition: %w", err)
		}
		l := either.LocationLink
		if l.TargetURI == "" {
			l = LocationLink{TargetURI: either.URI, TargetRange: either.Range, TargetSelectionRange: either.Range}
		}
		links = append(links, l)
	}
	return links, nil
}

// Hover is the type and documentation of the symbol at pos; nil when the
// server has nothing to say.
func (c *Client) Hover(ctx context.Context, uri string, pos Position) (*Hover, error) {
	var h *Hover
	err := c.Call(ctx, "textDocument/hover", at(uri, pos), &h)
	return h, err
}

// DocumentSymbols lists a document's symbols, nested when the server
// answers with DocumentSymbols (flat, as DocumentSymbol says, when it
// answers with SymbolInformation).
func (c *Client) DocumentSymbols(ctx context.Context, uri string) ([]DocumentSymbol, error) {
	var items []json.RawMessage
	params := map[string]any{"textDocument": textDocumentID{URI: uri}}
	if err := c.Call(ctx, "textDocument/documentSymbol", params, &items); err != nil {
		return nil, err
	}
	out := make([]DocumentSymbol, 0, len(items))
	for _, it := range items {
		var s struct {
			DocumentSymbol
			Location *Location `json:"location"`
		}
		if err := json.Unmarshal(it, &s); err != nil {
			return nil, fmt.Errorf("lsp: documentSymbol: %w", err)
		}
		if s.Location != nil {
			s.DocumentSymbol.Range, s.SelectionRange = s.Location.Range, s.Location.Range
		}
		out = append(out, s.DocumentSymbol)
	}
	return out, nil
}

// WorkspaceSymbols lists the workspace's symbols matching query, as the
// server matches (fuzzily, for most).
func (c *Client) WorkspaceSymbols(ctx context.Context, query string) ([]SymbolInformation, error) {
	var syms []SymbolInformation
	err := c.Call(ctx, "workspace/symbol", map[string]string{"query": query}, &syms)
	return syms, err
}

// PrepareRename asks whether the symbol at pos can be renamed: nil (and no
// error) when the server says it cannot; servers may also answer an error
// saying why.
func (c *Client) PrepareRename(ctx context.Context, uri string, pos Position) (*PrepareRenameResult, error) {
	var raw json.RawMessage
	if err := c.Call(ctx, "textDocument/prepareRename", at(uri, pos), &raw); err != nil || isNull(raw) {
		return nil, err
	}
	var r struct {
		Range
		Placeholder     string `json:"placeholder"`
		DefaultBehavior bool   `json:"defaultBehavior"`
		Inner           *Range `json:"range"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("lsp: prepareRename: %w", err)
	}
	res := &PrepareRenameResult{Range: r.Range, Placeholder: r.Placeholder, DefaultBehavior: r.DefaultBehavior}
	if r.Inner != nil {
		res.Range = *r.Inner
	}
	return res, nil
}

// Rename is the edit that renames the symbol at pos to newName across the
// workspace; nil when the server has none. The client applies nothing:
// see WorkspaceEdit.FileEdits.
func (c *Client) Rename(ctx context.Context, uri string, pos Position, newName string) (*WorkspaceEdit, error) {
	params := struct {
		textDocumentPosition
		NewName string `json:"newName"`
	}{at(uri, pos), newName}
	var w *WorkspaceEdit
	err := c.Call(ctx, "textDocument/rename", params, &w)
	return w, err
}

// PullsDiagnostics says the server answers textDocument/diagnostic (it
// declared a diagnosticProvider, or registered one since), so
// PullDiagnostics can be used.
func (c *Client) PullsDiagnostics() bool {
	var caps struct {
		DiagnosticProvider json.RawMessage `json:"diagnosticProvider"`
	}
	_ = json.Unmarshal(c.caps, &caps)
	if !isNull(caps.DiagnosticProvider) {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.registered {
		if m == "textDocument/diagnostic" {
			return true
		}
	}
	return false
}

// PullDiagnostics asks the server for a document's diagnostics now
// (textDocument/diagnostic): computed on everything the server was sent
// before, unlike published diagnostics, which come when the server is
// done. Only a full report is asked for and accepted (one without a kind
// is taken as full).
func (c *Client) PullDiagnostics(ctx context.Context, uri string) ([]Diagnostic, error) {
	var res struct {
		Kind  string       `json:"kind"`
		Items []Diagnostic `json:"items"`
	}
	if err := c.Call(ctx, "textDocument/diagnostic", map[string]any{"textDocument": map[string]string{"uri": uri}}, &res); err != nil {
		return nil, err
	}
	if res.Kind != "full" && res.Kind != "" { // gopls leaves kind empty
		return nil, fmt.Errorf("lsp: textDocument/diagnostic answered a %q report, not a full one", res.Kind)
	}
	return res.Items, nil
}
