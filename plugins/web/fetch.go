package web

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/sdk"
)

const (
	defaultMaxLength      = 20000
	maxMaxLength          = 200000
	defaultTimeoutSeconds = 30
	maxTimeoutSeconds     = 120
	// maxErrorBody is how much of an HTTP error's body is read for its
	// excerpt, and maxExcerpt how many chars of it are shown.
	maxErrorBody = 64 << 10
	maxExcerpt   = 500
)

const acceptHeader = "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.9,application/json;q=0.8,application/xml;q=0.8,*/*;q=0.5"

type fetchArgs struct {
	URL            string `json:"url" jsonschema:"http:// or https:// URL"`
	Start          int    `json:"start,omitempty" jsonschema:"character offset"`
	Limit          int    `json:"limit,omitempty" jsonschema:"most characters"`
	Raw            bool   `json:"raw,omitempty" jsonschema:"HTML source, not markdown"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" jsonschema:"give up after this long"`
}

var fetchSpec = sdk.ToolSpec{
	Name:        "fetch_url",
	Title:       "Fetch URL",
	Kind:        sdk.KindRead,
	Annotations: openWorld(),
	Description: `Fetch an http(s) URL and return its text, paged: HTML as markdown (main content; JavaScript is not run; raw for the source), other text as is; binaries are refused. A last line gives the start of the next page.`,
}

var fetchSchema = sdk.LazySchemaFor[fetchArgs](func(p map[string]*jsonschema.Schema) {
	p["url"].Format = "uri"
	sdk.IntDefault(p["start"], 0, 0, 0)
	sdk.IntDefault(p["limit"], defaultMaxLength, 1, maxMaxLength)
	sdk.IntDefault(p["timeout_seconds"], defaultTimeoutSeconds, 1, maxTimeoutSeconds)
	p["raw"].Default = []byte("false")
})

func (s *server) fetchURL(ctx context.Context, req *sdk.Request, args fetchArgs) (*sdk.Result, error) {
	u, err := checkURL(strings.TrimSpace(args.URL))
	if err != nil {
		return nil, err
	}
	maxLen, err := intArg("limit", args.Limit, defaultMaxLength, 1, maxMaxLength)
	if err != nil {
		return nil, err
	}
	seconds, err := intArg("timeout_seconds", args.TimeoutSeconds, defaultTimeoutSeconds, 1, maxTimeoutSeconds)
	if err != nil {
		return nil, err
	}
	if args.Start < 0 {
		return nil, sdk.Failf("start must not be negative (got %d)", args.Start)
	}
	key := fmt.Sprintf("%t %s", args.Raw, u)
	var doc *document
	if args.Start > 0 {
		doc, _ = s.pages.get(key, time.Now())
	}
	if doc == nil {
		doc, err = s.fetch(ctx, u, args.Raw, time.Duration(seconds)*time.Second, req.Events)
		if err != nil {
			return nil, err
		}
		s.pages.put(key, doc, time.Now())
	}
	text, err := doc.render(args.Start, maxLen)
	if err != nil {
		return nil, err
	}
	return sdk.TextResult(text), nil
}

// intArg applies an integer argument's default (for 0) and bounds.
func intArg(name string, v, def, lo, hi int) (int, error) {
	if v == 0 {
		return def, nil
	}
	if v < lo || v > hi {
		return 0, sdk.Failf("%s must be between %d and %d (got %d)", name, lo, hi, v)
	}
	return v, nil
}

// fetch downloads u and turns its body into a document.
func (s *server) fetch(ctx context.Context, u *url.URL, raw bool, timeout time.Duration, events sdk.Events) (*document, error) {
	fctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(fctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, sdk.Failf("url %q: %v", u.Redacted(), err)
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", acceptHeader)
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, requestError(ctx, err, u, timeout)
	}
	defer resp.Body.Close()
	final := resp.Request.URL
	ctype := strings.TrimSpace(resp.Header.Get("Content-Type"))
	mediaType := mediaTypeOf(ctype)

	if resp.StatusCode >= 400 {
		return nil, statusError(fctx, resp, final, ctype)
	}
	kind := classify(mediaType)
	if kind == kindBinary {
		return nil, binaryError(final, ctype, resp.ContentLength, false)
	}
	body, truncated, err := readCapped(resp.Body, s.maxBody, resp.ContentLength, events)
	if err != nil {
		if fctx.Err() != nil {
			return nil, requestError(ctx, fctx.Err(), u, timeout)
		}
		return nil, sdk.Failf("reading the body of %s failed after %s: %v", final.Redacted(), byteSize(int64(len(body))), err)
	}
	shownType := ctype
	if shownType == "" {
		shownType = "no content type"
	}
	if kind == kindUnknown {
		var sniffed string
		kind, sniffed = sniff(body)
		if kind == kindBinary {
			size := int64(len(body))
			if truncated {
				size = resp.ContentLength
			}
			return nil, binaryError(final, shownType+", content looks like "+sniffed, size, true)
		}
		shownType += ", content looks like " + sniffed
	}

	text, cs := decodeText(body, ctype)
	how := "as text"
	var title string
	switch {
	case raw:
		how = "raw"
	case kind == kindHTML:
		p, err := htmlToMarkdown(fctx, text, final)
		if err != nil {
			return nil, err
		}
		text, title, how = p.markdown, p.title, "as markdown"
		if p.part != "" {
			how += " of its <" + p.part + ">"
		}
	}
	if cs != "utf-8" {
		how = "decoded from " + cs + ", " + how
	}

	doc := newDocument("", text, "the body is empty")
	if kind == kindHTML && !raw {
		doc.empty = "the page has no text once scripts, styles and navigation are left out; it may be built by JavaScript, which fetch_url does not run. raw=true shows its HTML"
	}
	var h strings.Builder
	fmt.Fprintf(&h, "[%s] %s (%s, %s, %d chars)", resp.Status, final.Redacted(), shownType, how, doc.chars)
	if final.String() != u.String() {
		fmt.Fprintf(&h, "\nRedirected from: %s", u.Redacted())
	}
	if title != "" {
		fmt.Fprintf(&h, "\nTitle: %s", title)
	}
	if truncated {
		fmt.Fprintf(&h, "\nNote: the body is larger than %s and was truncated there, so the text ends early", byteSize(s.maxBody))
	}
	doc.header = h.String()
	return doc, nil
}

// mediaTypeOf is the lower-case media type of a Content-Type, without
// parameters; "" when there is none.
func mediaTypeOf(ctype string) string {
	if mt, _, err := mime.ParseMediaType(ctype); err == nil {
		return mt
	}
	mt, _, _ := strings.Cut(ctype, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

func binaryError(final *url.URL, ctype string, size int64, read bool) error {
	sz := "size not stated"
	switch {
	case size >= 0 && read:
		sz = byteSize(size) + " read"
	case size >= 0:
		sz = byteSize(size)
	}
	return sdk.Failf("%s is %s (%s), not text: fetch_url returns only HTML (as markdown) and textual types (text/*, JSON, XML, ...), and refuses images, PDFs, archives and other binary files", final.Redacted(), ctype, sz)
}

// statusError reports an HTTP error status with what the response says.
func statusError(ctx context.Context, resp *http.Response, final *url.URL, ctype string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s answered HTTP %s", final.Redacted(), resp.Status)
	switch code := resp.StatusCode; {
	case code == http.StatusNotFound || code == http.StatusGone:
		b.WriteString(": the page does not exist; check the URL")
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		b.WriteString(": access refused (the page may need a login, or the site refuses automated clients)")
	case code == http.StatusTooManyRequests:
		b.WriteString(": rate limited; wait before retrying")
	case code >= 500:
		b.WriteString(": a server error; retrying later may work")
	}
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		fmt.Fprintf(&b, " (Retry-After: %s)", ra)
	}
	if excerpt := errorExcerpt(ctx, resp, final, ctype); excerpt != "" {
		fmt.Fprintf(&b, "\n\nThe response says: %s", excerpt)
	}
	return sdk.Failf("%s", b.String())
}

func errorExcerpt(ctx context.Context, resp *http.Response, final *url.URL, ctype string) string {
	body, _, _ := readCapped(resp.Body, maxErrorBody, -1, sdk.NoEvents)
	kind := classify(mediaTypeOf(ctype))
	if kind == kindUnknown {
		kind, _ = sniff(body)
	}
	if kind == kindBinary || len(body) == 0 {
		return ""
	}
	text, _ := decodeText(body, ctype)
	if kind == kindHTML {
		if p, err := htmlToMarkdown(ctx, text, final); err == nil {
			text = p.markdown
			if text == "" {
				text = p.title
			}
		}
	}
	return cutChars(collapseSpace(text), maxExcerpt)
}

// cutChars shortens s to at most n runes, marking the cut with "…".
func cutChars(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}
