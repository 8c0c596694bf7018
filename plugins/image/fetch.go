package image

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/ramabana/ramabana-mcp/internal/apimessage"
	"github.com/ramabana/ramabana-mcp/sdk"
)

const maxRedirects = 5

// Redirect refusals, wrapped by the client in a *url.Error.
var (
	errTooManyRedirects = errors.New("too many redirects")
	errRedirectScheme   = errors.New("redirected to a URL of a scheme not allowed here")
)

// redirectsTo is a CheckRedirect that follows at most maxRedirects
// redirects, each to one of schemes.
func redirectsTo(schemes ...string) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if !contains(schemes, req.URL.Scheme) {
			return fmt.Errorf("%w: %s", errRedirectScheme, shownURL(req.URL))
		}
		if len(via) > maxRedirects {
			return errTooManyRedirects
		}
		return nil
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// download fetches the image at raw, a URL the provider answered with,
// under ctx (the provider's timeout); parent is the call's context. The
// API key is not sent: the URL may be anywhere. Unless the provider is
// local, the URL must be https on a public address, redirects included.
func (s *server) download(parent, ctx context.Context, p *provider, raw string) ([]byte, error) {
	if strings.HasPrefix(raw, "data:") {
		return decodeBase64(raw, "url", s.maxImage)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, sdk.Failf("the image provider at %s answered with an image URL that is not an absolute http(s) URL (%q); refused", p.shown, redactURL(raw))
	}
	shown := shownURL(u)
	client := s.open
	if !s.policy.isLocal(ctx, p.endpoint) {
		if u.Scheme != "https" {
			return nil, sdk.Failf("the image provider at %s answered with an image URL that is not https (%s); refused, since only a provider on a local address may hand out such URLs", p.shown, shown)
		}
		client = s.guarded
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, sdk.Failf("the image URL %s cannot be fetched: %v", shown, err)
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "image/png, image/jpeg, image/webp")
	resp, err := client.Do(req)
	if err != nil {
		return nil, s.downloadError(parent, ctx, p, shown, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return nil, sdk.Failf("fetching the image from %s failed: HTTP %d %s: %s", shown, resp.StatusCode, http.StatusText(resp.StatusCode), apimessage.Excerpt(p.redact(body), maxExcerpt))
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(s.maxImage)+1))
	if err != nil {
		return nil, s.downloadError(parent, ctx, p, shown, err)
	}
	if len(data) > s.maxImage {
		return nil, sdk.Failf("the image at %s is larger than %s; refused", shown, byteSize(s.maxImage))
	}
	return data, nil
}

func (s *server) downloadError(parent, ctx context.Context, p *provider, shown string, err error) error {
	switch {
	case parent.Err() != nil:
		return parent.Err()
	case ctx.Err() != nil:
		return sdk.Failf("fetching the image from %s did not end within the provider's timeout of %s; try again later", shown, p.timeout)
	case errors.Is(err, errNotPublic):
		var be *blockedError
		errors.As(err, &be)
		return sdk.Failf("the image provider at %s answered with an image URL %s that leads off the public internet (%v); refused, since the provider itself is not local", p.shown, shown, be)
	case errors.Is(err, errTooManyRedirects):
		return sdk.Failf("the image URL %s redirected more than %d times; refused", shown, maxRedirects)
	case errors.Is(err, errRedirectScheme):
		return sdk.Failf("the image URL %s %v; refused (only https is followed unless the provider is local)", shown, unwrapURL(err))
	}
	return sdk.Failf("fetching the image from %s failed: %v", shown, unwrapURL(err))
}

// unwrapURL is the cause of a *url.Error, whose URL may hold a query.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
