package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// searxng serves a fake SearXNG JSON API with 12 results, 5 a page.
func searxng(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("format") != "json" {
			http.Error(w, "Forbidden", http.StatusForbidden)
			return
		}
		if !strings.HasPrefix(r.UserAgent(), "ramabana-mcp/") {
			http.Error(w, "no user agent", http.StatusBadRequest)
			return
		}
		q := r.URL.Query().Get("q")
		page, _ := strconv.Atoi(r.URL.Query().Get("pageno"))
		type result struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		}
		var results []result
		for i := (page - 1) * 5; i < min(page*5, 12); i++ {
			results = append(results, result{
				Title:   fmt.Sprintf("%s result %d", q, i+1),
				URL:     fmt.Sprintf("https://example.org/%d", i+1),
				Content: fmt.Sprintf("About %s,\n number %d &amp; more", q, i+1),
			})
		}
		if page == 1 {
			// A duplicate, as engines merged by SearXNG give.
			results = append(results, result{Title: "dup", URL: "https://example.org/1"})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"query": q, "results": results})
	})
	mux.HandleFunc("/broken/search", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html>not json</html>")
	})
	mux.HandleFunc("/down/search", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "engine exploded", http.StatusBadGateway)
	})
	mux.HandleFunc("/nojson/search", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "Forbidden", http.StatusForbidden)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// brave serves a fake Brave Search API that wants the key "secret".
func brave(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/res/v1/web/search", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Subscription-Token") != "secret" {
			http.Error(w, `{"error": "invalid token"}`, http.StatusUnauthorized)
			return
		}
		q := r.URL.Query()
		count, _ := strconv.Atoi(q.Get("count"))
		offset, _ := strconv.Atoi(q.Get("offset"))
		if count < 1 || count > 20 {
			http.Error(w, "bad count", http.StatusUnprocessableEntity)
			return
		}
		type result struct {
			Title       string `json:"title"`
			URL         string `json:"url"`
			Description string `json:"description"`
		}
		var results []result
		for i := offset * count; i < min((offset+1)*count, 25); i++ {
			results = append(results, result{
				Title:       fmt.Sprintf("Brave %d", i+1),
				URL:         fmt.Sprintf("https://brave.example/%d", i+1),
				Description: fmt.Sprintf("The <strong>%s</strong> hit &quot;%d&quot;", q.Get("q"), i+1),
			})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"type": "search", "web": map[string]any{"results": results}})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// configDir writes config.json with the given web_search entry.
func configDir(t *testing.T, entry string) string {
	t.Helper()
	dir := t.TempDir()
	if entry != "" {
		data := `{"other_setting": 1, "web_search": ` + entry + `}`
		if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestWebSearch(t *testing.T) {
	t.Parallel()
	sx, br := searxng(t), brave(t)
	tests := map[string]struct {
		config string            // the web_search entry; {sx} and {brave} are the servers' URLs
		env    map[string]string // the plugin's environment
		args   map[string]any
		want   string
	}{
		"searxng": {
			config: `{"provider": "searxng", "url": "{sx}/"}`,
			args:   map[string]any{"query": "golang", "limit": 2},
			want: `Results for "golang" (searxng, 2):

1. golang result 1
   https://example.org/1
   About golang, number 1 & more

2. golang result 2
   https://example.org/2
   About golang, number 2 & more`,
		},
		"searxng over pages": {
			config: `{"provider": "searxng", "url": "{sx}/search"}`,
			args:   map[string]any{"query": "q", "limit": 50},
			want:   "Results for \"q\" (searxng, 12):",
		},
		"brave, key in the file": {
			config: `{"provider": "brave", "url": "{brave}/res/v1/web/search", "api_key": "secret"}`,
			args:   map[string]any{"query": "mcp", "limit": 1},
			want: `Results for "mcp" (brave, 1):

1. Brave 1
   https://brave.example/1
   The mcp hit "1"`,
		},
		"brave, key from the named variable": {
			config: `{"provider": "brave", "url": "{brave}/res/v1/web/search", "api_key_env": "MY_KEY"}`,
			env:    map[string]string{"MY_KEY": "secret"},
			args:   map[string]any{"query": "mcp", "limit": 3},
			want:   "Results for \"mcp\" (brave, 3):",
		},
		"brave, default variable, over pages": {
			config: `{"provider": "brave", "url": "{brave}/res/v1/web/search"}`,
			env:    map[string]string{"BRAVE_API_KEY": "secret"},
			args:   map[string]any{"query": "mcp", "limit": 30},
			want:   "Results for \"mcp\" (brave, 25):",
		},
		"environment overrides the file": {
			config: `{"provider": "brave", "api_key": "secret"}`,
			env:    map[string]string{"RAMABANA_SEARCH_PROVIDER": "searxng", "RAMABANA_SEARCH_URL": "{sx}"},
			args:   map[string]any{"query": "env"},
			want:   "Results for \"env\" (searxng, 10):",
		},
		"environment alone": {
			env:  map[string]string{"RAMABANA_SEARCH_URL": "{sx}"},
			args: map[string]any{"query": "env", "limit": 1},
			want: "Results for \"env\" (searxng, 1):",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fill := strings.NewReplacer("{sx}", sx.URL, "{brave}", br.URL)
			env := map[string]string{}
			for k, v := range tc.env {
				env[k] = fill.Replace(v)
			}
			g := connect(t, testServer(env), configDir(t, fill.Replace(tc.config)))
			text, isErr := call(t, g, "web_search", tc.args)
			if isErr {
				t.Fatalf("error: %s", text)
			}
			if strings.Contains(tc.want, "\n") {
				if diff := cmp.Diff(tc.want, text); diff != "" {
					t.Errorf("results (-want +got):\n%s", diff)
				}
				return
			}
			if !strings.HasPrefix(text, tc.want) {
				t.Errorf("results start %q, want %q", text[:min(len(text), 80)], tc.want)
			}
			// Each result is numbered in order, with a distinct URL.
			n, _ := strconv.Atoi(text[strings.LastIndex(tc.want, " ")+1 : len(tc.want)-2])
			urls := map[string]bool{}
			for i := 1; i <= n; i++ {
				at := strings.Index(text, fmt.Sprintf("\n\n%d. ", i))
				if at < 0 {
					t.Fatalf("result %d missing", i)
				}
				lines := strings.Split(text[at+2:], "\n")
				urls[strings.TrimSpace(lines[1])] = true
			}
			if len(urls) != n || strings.Contains(text, fmt.Sprintf("\n\n%d. ", n+1)) {
				t.Errorf("%d distinct URLs in %d results:\n%s", len(urls), n, text)
			}
		})
	}
}

func TestWebSearchErrors(t *testing.T) {
	t.Parallel()
	sx, br := searxng(t), brave(t)
	tests := map[string]struct {
		config    string // the web_search entry; "" writes no config.json; {sx} and {brave} the servers
		noDir     bool   // the host has no config dir
		rawConfig string // config.json as is
		env       map[string]string
		args      map[string]any
		want      []string // substrings of the error; {dir} is the config dir
	}{
		"no provider": {
			args: map[string]any{"query": "x"},
			want: []string{
				"web_search has no search provider configured",
				`"web_search" entry to {dir}/config.json`,
				`{"web_search": {"provider": "searxng", "url": "https://searx.example.org"}}`,
				`{"web_search": {"provider": "brave", "api_key_env": "BRAVE_API_KEY"}}`,
				"--plugin-env BRAVE_API_KEY", "RAMABANA_SEARCH_URL",
			},
		},
		"no config dir": {
			noDir: true,
			args:  map[string]any{"query": "x"},
			want:  []string{"web_search has no search provider configured", "--cfg DIR"},
		},
		"config without the entry": {
			rawConfig: `{"something_else": true}`,
			args:      map[string]any{"query": "x"},
			want:      []string{"web_search has no search provider configured"},
		},
		"malformed config": {
			rawConfig: `{"web_search": {"provider": }`,
			args:      map[string]any{"query": "x"},
			want:      []string{"{dir}/config.json is not valid JSON"},
		},
		"unknown provider": {
			config: `{"provider": "bing", "url": "https://bing.example"}`,
			args:   map[string]any{"query": "x"},
			want:   []string{`unknown search provider "bing"`, `"searxng" or "brave"`},
		},
		"searxng without url": {
			config: `{"provider": "searxng"}`,
			args:   map[string]any{"query": "x"},
			want:   []string{`needs "url"`, "{dir}/config.json"},
		},
		"bad url": {
			config: `{"provider": "searxng", "url": "ftp://searx.example"}`,
			args:   map[string]any{"query": "x"},
			want:   []string{`url "ftp://searx.example"`, "not an absolute http:// or https:// URL"},
		},
		"brave without key": {
			config: `{"provider": "brave"}`,
			args:   map[string]any{"query": "x"},
			want:   []string{"needs an API key", "BRAVE_API_KEY is not set", "--plugin-env BRAVE_API_KEY"},
		},
		"brave key refused": {
			config: `{"provider": "brave", "url": "{brave}/res/v1/web/search", "api_key": "wrong"}`,
			args:   map[string]any{"query": "x"},
			want:   []string{"Brave Search answered HTTP 401 Unauthorized", "API key was refused", "invalid token"},
		},
		"provider error status": {
			config: `{"provider": "searxng", "url": "{sx}/down"}`,
			args:   map[string]any{"query": "x"},
			want:   []string{"SearXNG answered HTTP 502 Bad Gateway", "engine exploded"},
		},
		"json format disabled": {
			config: `{"provider": "searxng", "url": "{sx}/nojson"}`,
			args:   map[string]any{"query": "x"},
			want:   []string{"HTTP 403 Forbidden", "search.formats"},
		},
		"not json": {
			config: `{"provider": "searxng", "url": "{sx}/broken"}`,
			args:   map[string]any{"query": "x"},
			want:   []string{"SearXNG did not answer with the expected JSON", "{sx}/broken/search", "<html>not json</html>"},
		},
		"unreachable": {
			config: `{"provider": "searxng", "url": "http://127.0.0.1:1"}`,
			args:   map[string]any{"query": "x"},
			want:   []string{"SearXNG could not be reached at http://127.0.0.1:1/search", "refused"},
		},
		"empty query": {
			config: `{"provider": "searxng", "url": "{sx}"}`,
			args:   map[string]any{"query": "  "},
			want:   []string{"query is empty"},
		},
		"limit too big": {
			config: `{"provider": "searxng", "url": "{sx}"}`,
			args:   map[string]any{"query": "x", "limit": 51},
			want:   []string{"invalid arguments for web_search", "invalid arguments for web_search: \"limit\" must be at most 50 (got 51)"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fill := strings.NewReplacer("{sx}", sx.URL, "{brave}", br.URL)
			dir := configDir(t, fill.Replace(tc.config))
			if tc.rawConfig != "" {
				if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(tc.rawConfig), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			host := dir
			if tc.noDir {
				host = ""
			}
			g := connect(t, testServer(tc.env), host)
			text, isErr := call(t, g, "web_search", tc.args)
			if !isErr {
				t.Fatalf("not an error: %s", text)
			}
			fill = strings.NewReplacer("{sx}", sx.URL, "{brave}", br.URL, "{dir}", dir)
			for _, w := range tc.want {
				if w = fill.Replace(w); !strings.Contains(text, w) {
					t.Errorf("error %q does not contain %q", text, w)
				}
			}
		})
	}
}
