package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/ramabana/ramabana-mcp/sdk"
)

const (
	// defaultMaxBody caps the bytes read of one response body.
	defaultMaxBody = 10 << 20
	maxRedirects   = 5
	// progressStep is how many bytes are read between progress events.
	progressStep = 512 << 10
)

// Redirect refusals, wrapped by the client in a *url.Error.
var (
	errTooManyRedirects = errors.New("too many redirects")
	errRedirectScheme   = errors.New("redirect to a scheme other than http or https")
)

// newClient returns the client both tools use: proxies from the
// environment, at most maxRedirects redirects, each to http or https.
// Timeouts come from each call's context.
func newClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 4
	tr.IdleConnTimeout = 60 * time.Second
	return &http.Client{Transport: tr, CheckRedirect: checkRedirect}
}

func checkRedirect(req *http.Request, via []*http.Request) error {
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("%w: %s", errRedirectScheme, req.URL.Redacted())
	}
	if len(via) > maxRedirects {
		return errTooManyRedirects
	}
	return nil
}

// checkURL parses a URL a tool was given and refuses anything but an
// absolute http or https URL.
func checkURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, sdk.Failf("url is empty; give an absolute http:// or https:// URL")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, sdk.Failf("url %q is not a valid URL: %v", raw, errors.Unwrap(err))
	}
	switch u.Scheme {
	case "http", "https":
	case "":
		return nil, sdk.Failf("url %q has no scheme; give an absolute URL such as https://%s", raw, raw)
	default:
		if u.Opaque != "" && u.Opaque[0] >= '0' && u.Opaque[0] <= '9' {
			// "localhost:8080/x" parses as scheme "localhost".
			return nil, sdk.Failf("url %q has no scheme; give an absolute URL such as http://%s", raw, raw)
		}
		return nil, sdk.Failf("url %q uses the %s: scheme; only http:// and https:// URLs can be fetched (read local files with the files tools)", raw, u.Scheme)
	}
	if u.Host == "" {
		return nil, sdk.Failf("url %q has no host", raw)
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

// requestError turns a failed request into a tool error; parent is the
// call's own context, to tell its cancellation from the fetch timeout.
func requestError(parent context.Context, err error, u *url.URL, timeout time.Duration) error {
	switch {
	case parent.Err() != nil:
		return parent.Err()
	case errors.Is(err, errTooManyRedirects):
		return sdk.Failf("%s redirected more than %d times; refused. Check the URL (a redirect loop?) or fetch a later address of the chain directly", u.Redacted(), maxRedirects)
	case errors.Is(err, errRedirectScheme):
		var ue *url.Error
		target := ""
		if errors.As(err, &ue) {
			target = " to " + ue.URL
		}
		return sdk.Failf("%s redirected%s, which is not an http or https URL; refused", u.Redacted(), target)
	case errors.Is(err, context.DeadlineExceeded):
		return sdk.Failf("fetching %s timed out after %s; the server is slow or unreachable. Retry later, or with a larger timeout_seconds (at most %d)", u.Redacted(), timeout, maxTimeoutSeconds)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return sdk.Failf("fetching %s failed: %v", u.Redacted(), err)
}

// readCapped reads at most limit bytes of r, reporting progress every
// progressStep bytes; truncated says whether more was left. total is the
// announced length, or -1.
func readCapped(r io.Reader, limit, total int64, events sdk.Events) (body []byte, truncated bool, err error) {
	pr := &progressReader{r: r, next: progressStep, total: total, events: events}
	body, err = io.ReadAll(io.LimitReader(pr, limit+1))
	if int64(len(body)) > limit {
		return body[:limit], true, nil
	}
	return body, false, err
}

// progressReader reports how much was read every progressStep bytes.
type progressReader struct {
	r       io.Reader
	n, next int64
	total   int64
	events  sdk.Events
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += int64(n)
	if p.n >= p.next {
		p.events.Progress(float64(p.n), float64(max(p.total, 0)), "downloaded "+sizeString(p.n, p.total))
		p.next = p.n + progressStep
	}
	return n, err
}

// sizeString is "1.5 MiB", or "1.5 MiB of 8.0 MiB" when total is known.
func sizeString(n, total int64) string {
	if total > 0 {
		return byteSize(n) + " of " + byteSize(total)
	}
	return byteSize(n)
}

func byteSize(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
}
