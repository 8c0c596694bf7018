package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/sdk"
)

const articleHTML = `<!DOCTYPE html>
<html>
<head>
<title>  The   Guide </title>
<style>body { color: red; }</style>
<script>var tracking = "SCRIPT-TEXT";</script>
</head>
<body>
<header><a href="/">Site logo</a> <a href="/login">Log in</a></header>
<nav><ul><li><a href="/a">Menu A</a></li><li><a href="/b">Menu B</a></li></ul></nav>
<div class="content">
<h1>Getting started</h1>
<p>Read the <a href="install.html">install guide</a>, the <a href="../faq/">FAQ</a> and <a href="/api?x=1#top">the API</a>.</p>
<p><img src="img/diagram.png" alt="Diagram"> <a href="javascript:void(0)">Click me</a></p>
<noscript>NOSCRIPT-TEXT</noscript>
<svg><text>SVG-TEXT</text></svg>
<div hidden>HIDDEN-TEXT</div>
<ul><li>one</li><li>two</li></ul>
<table><tr><th>Name</th><th>Size</th></tr><tr><td>a</td><td>1</td></tr></table>
<pre><code class="language-go">fmt.Println("hi")</code></pre>
</div>
<script>document.write("SCRIPT-TEXT-2")</script>
<footer>Copyright FOOTER-TEXT</footer>
</body>
</html>`

const articleMarkdown = "# Getting started\n\n" +
	"Read the [install guide]({url}/docs/guide/install.html), the [FAQ]({url}/docs/faq/) and [the API]({url}/api?x=1#top).\n\n" +
	"![Diagram]({url}/docs/guide/img/diagram.png) Click me\n\n" +
	"- one\n- two\n\n" +
	"| Name | Size |\n|------|------|\n| a    | 1    |\n\n" +
	"```go\nfmt.Println(\"hi\")\n```"

// latin1 is "Café crème" in ISO-8859-1.
var latin1 = "Caf\xe9 cr\xe8me"

// site serves the fixtures fetch_url is tested against.
func site(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/docs/guide/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, articleHTML)
	})
	mux.HandleFunc("/main", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><body><div class="sidebar"><a href="/x">Related 1</a> <a href="/y">Related 2</a></div>`+
			`<main><h2>Main part</h2><p>The real content of the page, long enough to count.</p></main>`+
			`<div>Cookie banner: we use cookies</div></body></html>`)
	})
	mux.HandleFunc("/base", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xhtml+xml")
		fmt.Fprint(w, `<html><head><base href="https://cdn.example.org/root/"/></head><body><p><a href="page">link</a></p></body></html>`)
	})
	mux.HandleFunc("/empty-html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><script src="app.js"></script></head><body><div id="root"></div></body></html>`)
	})
	mux.HandleFunc("/latin1-header", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=ISO-8859-1")
		fmt.Fprint(w, "<html><body><p>"+latin1+"</p></body></html>")
	})
	mux.HandleFunc("/latin1-meta", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><meta charset="iso-8859-1"></head><body><p>`+latin1+"</p></body></html>")
	})
	mux.HandleFunc("/latin1-text", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=latin1")
		fmt.Fprint(w, latin1)
	})
	mux.HandleFunc("/utf8-late", func(w http.ResponseWriter, r *http.Request) {
		// Undeclared UTF-8 whose first non-ASCII byte comes after 1 KiB.
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, strings.Repeat("a", 2000)+"é")
	})
	mux.HandleFunc("/data.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"name": "ramabana", "tags": ["<b>", "ü"]}`)
	})
	mux.HandleFunc("/feed", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/atom+xml")
		fmt.Fprint(w, `<feed><title>News</title></feed>`)
	})
	mux.HandleFunc("/logo.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + strings.Repeat("\x00", 100)))
	})
	mux.HandleFunc("/report.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Header().Set("Content-Length", "2057")
		w.Write([]byte("%PDF-1.4\n" + strings.Repeat("x", 2048)))
	})
	mux.HandleFunc("/blob", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write([]byte("PK\x03\x04\x00\x00binary\x00zip"))
	})
	mux.HandleFunc("/notes.md", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		fmt.Fprint(w, "# Notes\n\nplain text served as octet-stream\n")
	})
	mux.HandleFunc("/redirect/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.PathValue("n"))
		if err != nil {
			http.Error(w, "bad n", http.StatusBadRequest)
			return
		}
		if n == 0 {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "arrived")
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/redirect/%d", n-1), http.StatusFound)
	})
	mux.HandleFunc("/to-ftp", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "ftp://files.example.org/pub/file.txt", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `<html><head><title>404</title><script>x()</script></head><body><nav>Home</nav><h1>Not here</h1><p>No such page.</p></body></html>`)
	})
	mux.HandleFunc("/busy", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "120")
		http.Error(w, "slow down", http.StatusTooManyRequests)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	mux.HandleFunc("/slow-body", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "first part")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(strings.Repeat("0123456789abcdef", 6<<10))) // 96 KiB
	})
	mux.HandleFunc("/large", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Length", strconv.Itoa(2<<20))
		w.Write([]byte(strings.Repeat("x", 2<<20)))
	})
	mux.HandleFunc("/empty", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// header is a result's first line; body what follows the header block.
func split(text string) (header, body string) {
	head, body, _ := strings.Cut(text, "\n\n")
	header, _, _ = strings.Cut(head, "\n")
	return header, body
}

func TestFetchConverts(t *testing.T) {
	t.Parallel()
	srv := site(t)
	g := connect(t, testServer(nil), "")
	tests := map[string]struct {
		path   string
		args   map[string]any
		header string // the header block, {url} the server's URL
		body   string // {url} the server's URL
	}{
		"html to clean markdown with absolute links": {
			path:   "/docs/guide/",
			header: "[200 OK] {url}/docs/guide/ (text/html; charset=utf-8, as markdown, 350 chars)\nTitle: The Guide",
			body:   articleMarkdown,
		},
		"main content only": {
			path:   "/main",
			header: "[200 OK] {url}/main (text/html, as markdown of its <main>, 65 chars)",
			body:   "## Main part\n\nThe real content of the page, long enough to count.",
		},
		"base href": {
			path:   "/base",
			header: "[200 OK] {url}/base (application/xhtml+xml, as markdown, 41 chars)",
			body:   "[link](https://cdn.example.org/root/page)",
		},
		"page without text": {
			path:   "/empty-html",
			header: "[200 OK] {url}/empty-html (text/html, as markdown, 0 chars)",
			body:   "(the page has no text once scripts, styles and navigation are left out; it may be built by JavaScript, which fetch_url does not run. raw=true shows its HTML)",
		},
		"raw html": {
			path:   "/base",
			args:   map[string]any{"raw": true},
			header: "[200 OK] {url}/base (application/xhtml+xml, raw, 113 chars)",
			body:   `<html><head><base href="https://cdn.example.org/root/"/></head><body><p><a href="page">link</a></p></body></html>`,
		},
		"iso-8859-1 from the header": {
			path:   "/latin1-header",
			header: "[200 OK] {url}/latin1-header (text/html; charset=ISO-8859-1, decoded from windows-1252, as markdown, 10 chars)",
			body:   "Café crème",
		},
		"iso-8859-1 from meta": {
			path:   "/latin1-meta",
			header: "[200 OK] {url}/latin1-meta (text/html, decoded from windows-1252, as markdown, 10 chars)",
			body:   "Café crème",
		},
		"latin1 text": {
			path:   "/latin1-text",
			header: "[200 OK] {url}/latin1-text (text/plain; charset=latin1, decoded from windows-1252, as text, 10 chars)",
			body:   "Café crème",
		},
		"undeclared utf-8 after the first KiB": {
			path:   "/utf8-late",
			header: "[200 OK] {url}/utf8-late (text/plain, as text, 2001 chars)",
			body:   strings.Repeat("a", 2000) + "é",
		},
		"json as text": {
			path:   "/data.json",
			header: "[200 OK] {url}/data.json (application/json, as text, 42 chars)",
			body:   `{"name": "ramabana", "tags": ["<b>", "ü"]}`,
		},
		"xml as text": {
			path:   "/feed",
			header: "[200 OK] {url}/feed (application/atom+xml, as text, 32 chars)",
			body:   `<feed><title>News</title></feed>`,
		},
		"octet-stream that is text": {
			path:   "/notes.md",
			header: "[200 OK] {url}/notes.md (application/octet-stream, content looks like text/plain, as text, 43 chars)",
			body:   "# Notes\n\nplain text served as octet-stream\n",
		},
		"two redirects followed": {
			path:   "/redirect/2",
			header: "[200 OK] {url}/redirect/0 (text/plain, as text, 7 chars)\nRedirected from: {url}/redirect/2",
			body:   "arrived",
		},
		"five redirects followed": {
			path:   "/redirect/5",
			header: "[200 OK] {url}/redirect/0 (text/plain, as text, 7 chars)\nRedirected from: {url}/redirect/5",
			body:   "arrived",
		},
		"empty body": {
			path:   "/empty",
			header: "[200 OK] {url}/empty (text/plain, as text, 0 chars)",
			body:   "(the body is empty)",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args := map[string]any{"url": srv.URL + tc.path}
			for k, v := range tc.args {
				args[k] = v
			}
			text, isErr := call(t, g, "fetch_url", args)
			if isErr {
				t.Fatalf("error: %s", text)
			}
			want := strings.ReplaceAll(tc.header+"\n\n"+tc.body, "{url}", srv.URL)
			if diff := cmp.Diff(want, text); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFetchRefuses(t *testing.T) {
	t.Parallel()
	srv := site(t)
	s := testServer(nil)
	g := connect(t, s, "")
	tests := map[string]struct {
		args map[string]any
		want []string // substrings of the error, {url} the server's URL
	}{
		"file scheme":        {map[string]any{"url": "file:///etc/passwd"}, []string{"file: scheme", "only http:// and https://"}},
		"ftp scheme":         {map[string]any{"url": "ftp://files.example.org/pub/"}, []string{"ftp: scheme", "only http:// and https://"}},
		"no scheme":          {map[string]any{"url": "example.org/page"}, []string{"has no scheme", "https://example.org/page"}},
		"host and port":      {map[string]any{"url": "localhost:8080/x"}, []string{"has no scheme", "http://localhost:8080/x"}},
		"no host":            {map[string]any{"url": "http:///path"}, []string{"has no host"}},
		"six redirects":      {map[string]any{"url": "{url}/redirect/6"}, []string{"{url}/redirect/6 redirected more than 5 times"}},
		"redirect to ftp":    {map[string]any{"url": "{url}/to-ftp"}, []string{"redirected to ftp://files.example.org/pub/file.txt", "not an http or https URL"}},
		"404":                {map[string]any{"url": "{url}/missing"}, []string{"{url}/missing answered HTTP 404 Not Found: the page does not exist", "The response says: # Not here No such page."}},
		"429":                {map[string]any{"url": "{url}/busy"}, []string{"HTTP 429 Too Many Requests: rate limited", "Retry-After: 120", "slow down"}},
		"image":              {map[string]any{"url": "{url}/logo.png"}, []string{"{url}/logo.png is image/png (116 bytes), not text"}},
		"pdf":                {map[string]any{"url": "{url}/report.pdf"}, []string{"is application/pdf (2.0 KiB), not text"}},
		"binary octet":       {map[string]any{"url": "{url}/blob"}, []string{"is application/octet-stream, content looks like application/zip (16 bytes read), not text"}},
		"raw image":          {map[string]any{"url": "{url}/logo.png", "raw": true}, []string{"is image/png"}},
		"slow server":        {map[string]any{"url": "{url}/slow", "timeout_seconds": 1}, []string{"fetching {url}/slow timed out after 1s", "timeout_seconds"}},
		"slow body":          {map[string]any{"url": "{url}/slow-body", "timeout_seconds": 1}, []string{"timed out after 1s"}},
		"start past the end": {map[string]any{"url": "{url}/redirect/0", "start": 7}, []string{"start=7 is past the end: the text has 7 chars"}},
		"limit too big":      {map[string]any{"url": "{url}/redirect/0", "limit": 200001}, []string{"invalid arguments for fetch_url", "invalid arguments for fetch_url: \"limit\" must be at most 200000 (got 200001)"}},
		"timeout too big":    {map[string]any{"url": "{url}/redirect/0", "timeout_seconds": 121}, []string{"invalid arguments for fetch_url", "invalid arguments for fetch_url: \"timeout_seconds\" must be at most 120 (got 121)"}},
		"negative start":     {map[string]any{"url": "{url}/redirect/0", "start": -1}, []string{"invalid arguments for fetch_url", "invalid arguments for fetch_url: \"start\" must be at least 0 (got -1)"}},
		"connection refused": {map[string]any{"url": "http://127.0.0.1:1/"}, []string{"fetching http://127.0.0.1:1/ failed", "refused"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args := map[string]any{}
			for k, v := range tc.args {
				if s, ok := v.(string); ok {
					v = strings.ReplaceAll(s, "{url}", srv.URL)
				}
				args[k] = v
			}
			text, isErr := call(t, g, "fetch_url", args)
			if !isErr {
				t.Fatalf("not an error: %s", text)
			}
			for _, w := range tc.want {
				if w = strings.ReplaceAll(w, "{url}", srv.URL); !strings.Contains(text, w) {
					t.Errorf("error %q does not contain %q", text, w)
				}
			}
		})
	}
}

var pageNote = regexp.MustCompile(`\n\(chars (\d+)-(\d+) of (\d+); (?:continue with start=(\d+)|end of text)\)$`)

// fetchAll reads a URL page by page and returns the pages' texts joined.
func fetchAll(t *testing.T, g sdk.Group, url string, maxLength int) (string, int) {
	t.Helper()
	var b strings.Builder
	start, calls := 0, 0
	for {
		calls++
		text, isErr := call(t, g, "fetch_url", map[string]any{"url": url, "start": start, "limit": maxLength})
		if isErr {
			t.Fatalf("start=%d: %s", start, text)
		}
		_, body := split(text)
		m := pageNote.FindStringSubmatch(body)
		if m == nil {
			if start != 0 {
				t.Fatalf("start=%d: no page note in %q", start, body)
			}
			return body, calls
		}
		chunk := strings.TrimSuffix(body, m[0])
		if m[1] != strconv.Itoa(start) {
			t.Fatalf("page at start=%d says it starts at %s", start, m[1])
		}
		if n := utf8.RuneCountInString(chunk); n > maxLength || strconv.Itoa(start+n) != m[2] {
			t.Fatalf("page at start=%d has %d chars, note %q, limit %d", start, n, m[0], maxLength)
		}
		b.WriteString(chunk)
		if m[4] == "" {
			return b.String(), calls
		}
		start, _ = strconv.Atoi(m[4])
	}
}

func TestFetchPaging(t *testing.T) {
	t.Parallel()
	var lines []string
	for i := range 300 {
		lines = append(lines, fmt.Sprintf("line %d: héllo wörld 世界 🙂 %s", i, strings.Repeat("x", i%37)))
	}
	want := strings.Join(lines, "\n") + "\n"
	var hits atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/long.txt", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, want)
	})
	mux.HandleFunc("/changing", func(w http.ResponseWriter, r *http.Request) {
		n := hits.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, strings.Repeat(fmt.Sprintf("version %d\n", n), 100))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	g := connect(t, testServer(nil), "")

	t.Run("two calls", func(t *testing.T) {
		total := utf8.RuneCountInString(want)
		got, calls := fetchAll(t, g, srv.URL+"/long.txt", total/2+100)
		if calls != 2 {
			t.Errorf("%d calls, want 2", calls)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("reassembled text (-want +got):\n%s", diff)
		}
	})
	t.Run("many pages, cut mid-line", func(t *testing.T) {
		got, calls := fetchAll(t, g, srv.URL+"/long.txt", 37)
		if calls < 100 {
			t.Errorf("%d calls, want many", calls)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("reassembled text (-want +got):\n%s", diff)
		}
	})
	t.Run("pages end at a line break", func(t *testing.T) {
		text, _ := call(t, g, "fetch_url", map[string]any{"url": srv.URL + "/long.txt", "limit": 1000})
		_, body := split(text)
		m := pageNote.FindStringSubmatch(body)
		if m == nil || !strings.HasSuffix(strings.TrimSuffix(body, m[0]), "\n") {
			t.Errorf("page does not end at a line break: ...%q", body[max(0, len(body)-120):])
		}
	})
	t.Run("a continuation reads the same fetch", func(t *testing.T) {
		before := hits.Load()
		got, calls := fetchAll(t, g, srv.URL+"/changing", 300)
		if fetched := hits.Load() - before; fetched != 1 {
			t.Errorf("%d fetches for %d calls, want 1", fetched, calls)
		}
		v := fmt.Sprintf("version %d\n", before+1)
		if want := strings.Repeat(v, 100); got != want {
			t.Errorf("reassembled text mixes versions: %q", got)
		}
	})
}

func TestFetchBodyCap(t *testing.T) {
	t.Parallel()
	srv := site(t)
	s := testServer(nil)
	s.maxBody = 64 << 10
	g := connect(t, s, "")
	text, isErr := call(t, g, "fetch_url", map[string]any{"url": srv.URL + "/big", "limit": 100})
	if isErr {
		t.Fatal(text)
	}
	head, body, _ := strings.Cut(text, "\n\n")
	wantHead := fmt.Sprintf("[200 OK] %s/big (text/plain, as text, 65536 chars)\nNote: the body is larger than 64.0 KiB and was truncated there, so the text ends early", srv.URL)
	if diff := cmp.Diff(wantHead, head); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	if want := strings.Repeat("0123456789abcdef", 7)[:100] + "\n(chars 0-100 of 65536; continue with start=100)"; body != want {
		t.Errorf("body %q, want %q", body, want)
	}
}

func TestFetchProgress(t *testing.T) {
	t.Parallel()
	srv := site(t)
	g := connect(t, testServer(nil), "")
	rec := &recorder{}
	res := callEvents(t, g, "fetch_url", map[string]any{"url": srv.URL + "/large", "limit": 10}, rec)
	if res.IsError {
		t.Fatal(res.Text())
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.progress) < 2 {
		t.Fatalf("%d progress events for a 2 MiB body, want several", len(rec.progress))
	}
	for i, p := range rec.progress {
		if rec.totals[i] != 2<<20 || p > 2<<20 || (i > 0 && p <= rec.progress[i-1]) {
			t.Errorf("event %d: %v of %v", i, p, rec.totals[i])
		}
	}
}
