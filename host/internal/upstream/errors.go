package upstream

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// Codes of a [ToolsListError]: the first two are the stable names the
// pagination contract gives a broken paginator.
const (
	CodeRepeatedCursor     = "RepeatedCursor"
	CodePaginationExceeded = "PaginationExceeded"
	CodePageFailed         = "PageFailed"
)

// MaxToolPages is the most tools/list pages [Conn.Tools] fetches.
const MaxToolPages = 64

// Sentinels a [*ToolsListError] matches with errors.Is, one per code.
var (
	ErrRepeatedCursor     = errors.New(CodeRepeatedCursor)
	ErrPaginationExceeded = errors.New(CodePaginationExceeded)
	ErrPageFailed         = errors.New(CodePageFailed)
)

// ToolsListError is a typed tools/list failure: a server that repeats a
// cursor, one that never stops, or a page that failed. It is never a hang.
type ToolsListError struct {
	Server string
	Code   string // CodeRepeatedCursor, CodePaginationExceeded or CodePageFailed
	// Page is the 1-based page: the one that returned the repeated cursor,
	// the first one over the cap, or the one that failed.
	Page int
	// Cursor is the repeated cursor (RepeatedCursor) or the cursor sent for
	// Page ("" for the first page).
	Cursor string
	Err    error // the cause of a PageFailed; nil otherwise
}

func (e *ToolsListError) Error() string {
	prefix := fmt.Sprintf("list tools of MCP server %q: %s: ", e.Server, e.Code)
	switch e.Code {
	case CodeRepeatedCursor:
		return prefix + fmt.Sprintf("page %d returned cursor %q, which was already used", e.Page, e.Cursor)
	case CodePaginationExceeded:
		return prefix + fmt.Sprintf("more than %d pages", MaxToolPages)
	default:
		return prefix + fmt.Sprintf("page %d (cursor %q): %v", e.Page, e.Cursor, e.Err)
	}
}

// Unwrap returns the cause of a failed page.
func (e *ToolsListError) Unwrap() error { return e.Err }

// Is matches the sentinel of the error's code.
func (e *ToolsListError) Is(target error) bool {
	switch e.Code {
	case CodeRepeatedCursor:
		return target == ErrRepeatedCursor
	case CodePaginationExceeded:
		return target == ErrPaginationExceeded
	case CodePageFailed:
		return target == ErrPageFailed
	}
	return false
}

// Errors of a [Pool], matched with errors.Is.
var (
	ErrUnknownServer    = errors.New("unknown MCP server")
	ErrAlreadyConnected = errors.New("MCP server is already connected")
	ErrNotConnected     = errors.New("MCP server is not connected")
	ErrUnknownTool      = sdk.ErrUnknownTool // one sentinel for an unknown tool, wherever it is met
	ErrPoolClosed       = errors.New("MCP pool is closed")
)

// UnknownServerError names an id that is not in the config, and the ids
// that are. It matches [ErrUnknownServer].
type UnknownServerError struct {
	ID        string
	Available []string // sorted
}

func (e *UnknownServerError) Error() string {
	avail := "none"
	if len(e.Available) > 0 {
		avail = strings.Join(e.Available, ", ")
	}
	return fmt.Sprintf("unknown MCP server %q; available: %s", e.ID, avail)
}

// Is matches [ErrUnknownServer].
func (e *UnknownServerError) Is(target error) bool { return target == ErrUnknownServer }

// poolError is an error with an exact message that matches one sentinel.
type poolError struct {
	msg  string
	kind error
}

func (e *poolError) Error() string        { return e.msg }
func (e *poolError) Is(target error) bool { return target == e.kind }

func alreadyConnected(id string) error {
	return &poolError{fmt.Sprintf("MCP server %q is already connected", id), ErrAlreadyConnected}
}

func notConnected(id string) error {
	return &poolError{fmt.Sprintf("MCP server %q is not connected; connect it with mcp_connect first", id), ErrNotConnected}
}

func unknownTool(namespaced, why string) error {
	return &poolError{fmt.Sprintf("unknown MCP tool %q: %s", namespaced, why), ErrUnknownTool}
}
