package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/sdk"
)

const (
	defaultCount = 10
	maxCount     = 50
	// maxSearchBody caps one provider response.
	maxSearchBody = 5 << 20
	// maxSearchPages bounds the requests of one search.
	maxSearchPages = 5
	// braveMaxCount is Brave's largest page.
	braveMaxCount = 20
	braveURL      = "https://api.search.brave.com/res/v1/web/search"
)

type searchArgs struct {
	Query string `json:"query" jsonschema:"search terms"`
	Limit int    `json:"limit,omitempty" jsonschema:"most results"`
}

var searchSpec = sdk.ToolSpec{
	Name:        "web_search",
	Title:       "Search the web",
	Kind:        sdk.KindRead,
	Annotations: openWorld(),
	Description: `Search the web with the provider the user configured; returns numbered results with title, URL and snippet. Without a provider the error says how to set one up: relay it to the user.`,
}

var searchSchema = sdk.LazySchemaFor[searchArgs](func(p map[string]*jsonschema.Schema) {
	sdk.IntDefault(p["limit"], defaultCount, 1, maxCount)
})

// searchConfig is the "web_search" entry of config.json.
type searchConfig struct {
	Provider  string `json:"provider"`
	URL       string `json:"url"`
	APIKey    string `json:"api_key"`
	APIKeyEnv string `json:"api_key_env"`
}

// Environment variables that override the config file.
const (
	envSearchProvider = "RAMABANA_SEARCH_PROVIDER"
	envSearchURL      = "RAMABANA_SEARCH_URL"
	braveKeyEnv       = "BRAVE_API_KEY"
)

// searchResult is one hit, whichever the provider.
type searchResult struct {
	Title, URL, Snippet string
}

func (s *server) webSearch(ctx context.Context, req *sdk.Request, args searchArgs) (*sdk.Result, error) {
	query := strings.TrimSpace(args.Query)
	if query == "" {
		return nil, sdk.Failf("query is empty; say what to search for")
	}
	count, err := intArg("limit", args.Limit, defaultCount, 1, maxCount)
	if err != nil {
		return nil, err
	}
	cfg, err := s.searchConfig(req.Host.ConfigDir)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.searchTimeout)
	defer cancel()
	var results []searchResult
	switch cfg.Provider {
	case "searxng":
		results, err = s.searchSearXNG(ctx, cfg, query, count)
	case "brave":
		results, err = s.searchBrave(ctx, cfg, query, count)
	}
	if err != nil {
		return nil, err
	}
	if len(results) == 0 {
		return sdk.TextResult(fmt.Sprintf("No results for %q (%s).", query, cfg.Provider)), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Results for %q (%s, %d):\n", query, cfg.Provider, len(results))
	for i, r := range results {
		title := r.Title
		if title == "" {
			title = "(no title)"
		}
		fmt.Fprintf(&b, "\n%d. %s\n   %s\n", i+1, title, r.URL)
		if r.Snippet != "" {
			fmt.Fprintf(&b, "   %s\n", r.Snippet)
		}
	}
	return sdk.TextResult(strings.TrimSuffix(b.String(), "\n")), nil
}

// searchConfig reads the provider from <configDir>/config.json, with the
// environment overriding provider and URL, and checks it.
func (s *server) searchConfig(configDir string) (searchConfig, error) {
	var cfg searchConfig
	path := ""
	if configDir != "" {
		path = filepath.Join(configDir, "config.json")
		data, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return cfg, sdk.Failf("cannot read the search configuration %s: %v", path, err)
		default:
			var file struct {
				WebSearch *searchConfig `json:"web_search"`
			}
			if err := json.Unmarshal(data, &file); err != nil {
				return cfg, sdk.Failf("the config file %s is not valid JSON (%v); fix it so that web_search can read its \"web_search\" entry", path, err)
			}
			if file.WebSearch != nil {
				cfg = *file.WebSearch
			}
		}
	}
	if v := strings.TrimSpace(s.getenv(envSearchProvider)); v != "" {
		cfg.Provider = v
	}
	if v := strings.TrimSpace(s.getenv(envSearchURL)); v != "" {
		cfg.URL = v
	}
	cfg.Provider = strings.ToLower(strings.TrimSpace(cfg.Provider))
	if cfg.Provider == "" && cfg.URL != "" {
		cfg.Provider = "searxng"
	}
	switch cfg.Provider {
	case "":
		return cfg, sdk.Failf("%s", setupHelp(path))
	case "searxng":
		if cfg.URL == "" {
			return cfg, sdk.Failf("web_search: the searxng provider needs \"url\", the address of a SearXNG instance, in the \"web_search\" entry of %s (or %s); for example %s", orConfig(path), envSearchURL, exampleSearXNG)
		}
	case "brave":
		if cfg.URL == "" {
			cfg.URL = braveURL
		}
		if cfg.APIKey == "" {
			name := cfg.APIKeyEnv
			if name == "" {
				name = braveKeyEnv
			}
			cfg.APIKey = strings.TrimSpace(s.getenv(name))
			if cfg.APIKey == "" {
				return cfg, sdk.Failf("web_search: the brave provider needs an API key (https://brave.com/search/api/), and %s is not set in this plugin's environment. Either put \"api_key\" in the \"web_search\" entry of %s, or set %s in the host's environment and start ramabana-mcp with --plugin-env %s: the host passes plugins only an allow-list of environment variables", name, orConfig(path), name, name)
			}
		}
	default:
		return cfg, sdk.Failf("web_search: unknown search provider %q in %s; use \"searxng\" or \"brave\"", cfg.Provider, orConfig(path))
	}
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return cfg, sdk.Failf("web_search: the %s url %q in %s is not an absolute http:// or https:// URL", cfg.Provider, cfg.URL, orConfig(path))
	}
	return cfg, nil
}

const (
	exampleSearXNG = `{"web_search": {"provider": "searxng", "url": "https://searx.example.org"}}`
	exampleBrave   = `{"web_search": {"provider": "brave", "api_key_env": "BRAVE_API_KEY"}}`
)

func orConfig(path string) string {
	if path == "" {
		return "the config file (the host has no config dir; start it with --cfg DIR)"
	}
	return path
}

// setupHelp says how to configure a provider.
func setupHelp(path string) string {
	where := "config.json in the server's config dir (the host has none now; start ramabana-mcp with --cfg DIR)"
	if path != "" {
		where = path
	}
	return fmt.Sprintf(`web_search has no search provider configured. Tell the user to add a "web_search" entry to %s, either a SearXNG instance (its settings.yml must list json under search.formats):

  %s

or the Brave Search API (key from https://brave.com/search/api/):

  %s

and to start ramabana-mcp with --plugin-env BRAVE_API_KEY, because the host passes plugins only an allow-listed environment ("api_key": "..." in the entry works too). The environment variables %s (searxng or brave) and %s override the file; they too must be passed with --plugin-env. fetch_url works without a provider.`,
		where, exampleSearXNG, exampleBrave, envSearchProvider, envSearchURL)
}

// searchSearXNG asks a SearXNG instance's JSON API, page after page until
// count results are in or a page brings nothing new.
func (s *server) searchSearXNG(ctx context.Context, cfg searchConfig, query string, count int) ([]searchResult, error) {
	endpoint := strings.TrimRight(cfg.URL, "/")
	if !strings.HasSuffix(endpoint, "/search") {
		endpoint += "/search"
	}
	var results []searchResult
	seen := map[string]bool{}
	for page := 1; page <= maxSearchPages && len(results) < count; page++ {
		q := url.Values{"q": {query}, "format": {"json"}, "pageno": {strconv.Itoa(page)}}
		var body struct {
			Results []struct {
				Title   string `json:"title"`
				URL     string `json:"url"`
				Content string `json:"content"`
			} `json:"results"`
		}
		if err := s.getJSON(ctx, "SearXNG", endpoint+"?"+q.Encode(), nil, &body); err != nil {
			return nil, err
		}
		added := 0
		for _, r := range body.Results {
			if r.URL == "" || seen[r.URL] || len(results) == count {
				continue
			}
			seen[r.URL] = true
			results = append(results, searchResult{Title: plainText(r.Title), URL: r.URL, Snippet: plainText(r.Content)})
			added++
		}
		if added == 0 {
			break
		}
	}
	return results, nil
}

// searchBrave asks the Brave Search API, in pages of up to 20.
func (s *server) searchBrave(ctx context.Context, cfg searchConfig, query string, count int) ([]searchResult, error) {
	per := min(count, braveMaxCount)
	header := http.Header{"X-Subscription-Token": {cfg.APIKey}}
	var results []searchResult
	seen := map[string]bool{}
	for offset := 0; offset < maxSearchPages && len(results) < count; offset++ {
		q := url.Values{"q": {query}, "count": {strconv.Itoa(per)}}
		if offset > 0 {
			q.Set("offset", strconv.Itoa(offset))
		}
		sep := "?"
		if strings.Contains(cfg.URL, "?") {
			sep = "&"
		}
		var body struct {
			Web struct {
				Results []struct {
					Title       string `json:"title"`
					URL         string `json:"url"`
					Description string `json:"description"`
				} `json:"results"`
			} `json:"web"`
		}
		if err := s.getJSON(ctx, "Brave Search", cfg.URL+sep+q.Encode(), header, &body); err != nil {
			return nil, err
		}
		for _, r := range body.Web.Results {
			if r.URL == "" || seen[r.URL] || len(results) == count {
				continue
			}
			seen[r.URL] = true
			results = append(results, searchResult{Title: plainText(r.Title), URL: r.URL, Snippet: plainText(r.Description)})
		}
		if len(body.Web.Results) < per {
			break
		}
	}
	return results, nil
}

// getJSON GETs a provider's URL and decodes its JSON answer into v.
func (s *server) getJSON(ctx context.Context, provider, rawURL string, header http.Header, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return sdk.Failf("%s: bad request URL %q: %v", provider, rawURL, err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded) {
			return sdk.Failf("%s did not answer within %s; try again later", provider, s.searchTimeout)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return sdk.Failf("%s could not be reached at %s: %v", provider, redact(req.URL), err)
	}
	defer resp.Body.Close()
	body, truncated, err := readCapped(resp.Body, maxSearchBody, resp.ContentLength, sdk.NoEvents)
	if err != nil {
		return sdk.Failf("%s: reading the answer failed: %v", provider, err)
	}
	if resp.StatusCode != http.StatusOK {
		var hint string
		switch resp.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			if provider == "SearXNG" {
				hint = " (SearXNG answers 403 when the json format is not enabled: add json under search.formats in its settings.yml)"
			} else {
				hint = " (the API key was refused; check it)"
			}
		case http.StatusTooManyRequests:
			hint = " (rate limited; wait before searching again)"
		}
		excerpt := cutChars(collapseSpace(strings.ToValidUTF8(string(body[:min(len(body), 2048)]), "\uFFFD")), 300)
		return sdk.Failf("%s answered HTTP %s%s: %s", provider, resp.Status, hint, excerpt)
	}
	if truncated {
		return sdk.Failf("%s: the answer is larger than %s; refused", provider, byteSize(maxSearchBody))
	}
	if err := json.Unmarshal(body, v); err != nil {
		return sdk.Failf("%s did not answer with the expected JSON (%v); is %s the right URL? Answer starts: %s", provider, err, redact(req.URL), cutChars(collapseSpace(strings.ToValidUTF8(string(body[:min(len(body), 1024)]), "\uFFFD")), 200))
	}
	return nil
}

// redact is the URL without its query, which may hold the search terms or
// a key.
func redact(u *url.URL) string {
	c := *u
	c.RawQuery = ""
	return c.Redacted()
}
