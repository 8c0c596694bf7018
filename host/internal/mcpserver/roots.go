//lint:file-ignore SA1019 MCP roots are deprecated by protocol 2026-07-28 (SEP-2577), and are what clients that open sessions with initialize, every client today, speak.

package mcpserver

import (
	"context"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ramabana/ramabana-mcp/host/internal/hub"
)

// clientRoots serves the client's roots (Options.ClientRoots): once the
// client has initialized, and each time it says its roots changed, the
// server asks for them (roots/list) and serves those folders instead of
// the ones it serves now (hub.Host.SetRoots). A client that answers no
// roots, an error, or none that is a local folder leaves the served
// folders as they are.
type clientRoots struct {
	host   *hub.Host
	logger *slog.Logger
	mu     sync.Mutex // one sync at a time, in the order asked
	// session ends when the session does: every sync's wait is bound to
	// it (made at the first sync, with the one goroutine that ends it).
	session context.Context
}

// sync asks the session's client for its roots and serves them. It runs
// on its own goroutine: a request to the client cannot wait inside the
// handler of the client's notification.
func (c *clientRoots) sync(ss *mcp.ServerSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session == nil {
		var end context.CancelFunc
		c.session, end = context.WithCancel(context.Background())
		go func() {
			_ = ss.Wait()
			end()
		}()
	}
	ctx, cancel := context.WithTimeout(c.session, 2*time.Minute)
	defer cancel()
	lctx, lcancel := context.WithTimeout(ctx, 30*time.Second)
	res, err := ss.ListRoots(lctx, nil)
	lcancel()
	if err != nil {
		c.logger.Debug("the client did not list its roots; the served folders stay", "error", err)
		return
	}
	dirs := localFolders(res.Roots, c.logger)
	if len(dirs) == 0 {
		c.logger.Info("the client lists no local folder as a root; the served folders stay", "roots", len(res.Roots))
		return
	}
	if err := c.host.SetRoots(ctx, dirs); err != nil && ctx.Err() == nil {
		c.logger.Warn("the client's roots are not served", "roots", dirs, "error", err)
	}
}

// localFolders are the roots that name existing local folders, as paths;
// the others are logged and left out.
func localFolders(roots []*mcp.Root, logger *slog.Logger) []string {
	var dirs []string
	for _, r := range roots {
		path, ok := filePath(r.URI, runtime.GOOS)
		if !ok {
			logger.Warn("a root of the client is not a local file: URI; it is not served", "uri", r.URI)
			continue
		}
		if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
			logger.Warn("a root of the client is not a folder here; it is not served", "uri", r.URI)
			continue
		}
		dirs = append(dirs, path)
	}
	return dirs
}

// filePath is the local path a file: URI names on goos, percent-escapes
// decoded: file:///home/a/b is /home/a/b, and on Windows
// file:///C:/Users/a is C:\Users\a and file://server/share/a the UNC path
// \\server\share\a. A URI of another scheme, or of another host than this
// one elsewhere, names no local path.
func filePath(uri, goos string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	host := u.Host
	if host == "localhost" {
		host = ""
	}
	if goos != "windows" {
		if host != "" || !strings.HasPrefix(u.Path, "/") {
			return "", false
		}
		return filepath.Clean(u.Path), true
	}
	p := strings.ReplaceAll(u.Path, "/", `\`)
	switch {
	case host != "": // a share: \\host\share\...
		return `\\` + host + p, true
	case len(p) >= 3 && p[0] == '\\' && p[2] == ':': // \C:\x
		return p[1:], true
	}
	return "", false
}
