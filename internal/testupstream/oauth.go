package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// authServer is mode oauth's authorization server, on the MCP server's
// own origin (its issuer is the base URL): protected resource metadata
// (RFC 9728), authorization server metadata (RFC 8414), dynamic client
// registration (RFC 7591), the authorization code grant with PKCE S256
// only, and refresh tokens. The authorization endpoint approves at once
// and redirects: the browser is whoever GETs the URL. Access tokens live
// for ttl.
type authServer struct {
	base string
	ttl  time.Duration
	// preregistered, when set, is a client id the server knows without
	// registration, for any loopback redirect (RFC 8252: any port); the
	// server then offers no dynamic registration.
	preregistered string

	mu        sync.Mutex
	clients   map[string][]string // client id → redirect URIs
	codes     map[string]grant    // authorization code → what it grants
	access    map[string]time.Time
	refresh   map[string]string // refresh token → client id
	issued    int               // codes exchanged
	refreshed int               // refresh grants
}

type grant struct {
	client, redirect, challenge string
}

func newAuthServer(base string, ttl time.Duration) *authServer {
	return &authServer{base: base, ttl: ttl, clients: map[string][]string{}, codes: map[string]grant{},
		access: map[string]time.Time{}, refresh: map[string]string{}}
}

func random() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func oauthError(w http.ResponseWriter, code int, kind, desc string) {
	writeJSON(w, code, map[string]string{"error": kind, "error_description": desc})
}

// routes adds the authorization server's endpoints to mux, and returns
// mcp wrapped so that a request without a live access token is 401 with
// the challenge that leads a client to the metadata.
func (a *authServer) routes(mux *http.ServeMux, protected http.Handler) http.Handler {
	mux.HandleFunc("/.well-known/oauth-protected-resource", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, 200, map[string]any{"resource": a.base + "/mcp", "authorization_servers": []string{a.base}})
	})
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, 200, map[string]any{"resource": a.base + "/mcp", "authorization_servers": []string{a.base}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		meta := map[string]any{
			"issuer": a.base, "authorization_endpoint": a.base + "/authorize", "token_endpoint": a.base + "/token",
			"registration_endpoint": a.base + "/register", "response_types_supported": []string{"code"},
			"grant_types_supported":            []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none"},
		}
		if a.preregistered != "" {
			delete(meta, "registration_endpoint")
		}
		writeJSON(w, 200, meta)
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var md struct {
			RedirectURIs []string `json:"redirect_uris"`
		}
		if err := json.NewDecoder(r.Body).Decode(&md); err != nil || len(md.RedirectURIs) == 0 {
			oauthError(w, 400, "invalid_client_metadata", "redirect_uris are required")
			return
		}
		id := "client-" + random()
		a.mu.Lock()
		a.clients[id] = md.RedirectURIs
		a.mu.Unlock()
		writeJSON(w, 201, map[string]any{"client_id": id, "redirect_uris": md.RedirectURIs, "token_endpoint_auth_method": "none",
			"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		a.mu.Lock()
		redirects, known := a.clients[q.Get("client_id")]
		a.mu.Unlock()
		redirect := q.Get("redirect_uri")
		if a.preregistered != "" && q.Get("client_id") == a.preregistered && strings.HasPrefix(redirect, "http://127.0.0.1:") {
			known, redirects = true, []string{redirect}
		}
		switch {
		case !known:
			oauthError(w, 400, "invalid_client", "unknown client")
		case !contains(redirects, redirect):
			oauthError(w, 400, "invalid_request", "redirect_uri not registered")
		case q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
			oauthError(w, 400, "invalid_request", "response_type code with a PKCE S256 challenge is required")
		default:
			code := random()
			a.mu.Lock()
			a.codes[code] = grant{client: q.Get("client_id"), redirect: redirect, challenge: q.Get("code_challenge")}
			a.mu.Unlock()
			u, _ := url.Parse(redirect)
			v := u.Query()
			v.Set("code", code)
			v.Set("state", q.Get("state"))
			u.RawQuery = v.Encode()
			http.Redirect(w, r, u.String(), http.StatusFound)
		}
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			oauthError(w, 400, "invalid_request", err.Error())
			return
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		var client string
		switch r.PostForm.Get("grant_type") {
		case "authorization_code":
			g, ok := a.codes[r.PostForm.Get("code")]
			delete(a.codes, r.PostForm.Get("code"))
			sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
			if !ok || g.redirect != r.PostForm.Get("redirect_uri") || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
				oauthError(w, 400, "invalid_grant", "bad code, redirect_uri or code_verifier")
				return
			}
			client = g.client
			a.issued++
		case "refresh_token":
			c, ok := a.refresh[r.PostForm.Get("refresh_token")]
			if !ok {
				oauthError(w, 400, "invalid_grant", "unknown refresh token")
				return
			}
			delete(a.refresh, r.PostForm.Get("refresh_token"))
			client = c
			a.refreshed++
		default:
			oauthError(w, 400, "unsupported_grant_type", "authorization_code or refresh_token")
			return
		}
		access, refresh := random(), random()
		a.access[access] = time.Now().Add(a.ttl)
		a.refresh[refresh] = client
		writeJSON(w, 200, map[string]any{"access_token": access, "token_type": "Bearer", "refresh_token": refresh,
			"expires_in": int(a.ttl.Seconds())})
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, _ := bearer(r)
		a.mu.Lock()
		until, ok := a.access[token]
		a.mu.Unlock()
		if !ok || time.Now().After(until) {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+a.base+`/.well-known/oauth-protected-resource"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		protected.ServeHTTP(w, r)
	})
}

// stats is what auth_stats answers: codes exchanged and refresh grants.
func (a *authServer) stats() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return "codes=" + strconv.Itoa(a.issued) + " refreshes=" + strconv.Itoa(a.refreshed)
}

func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && h[:7] == "Bearer " {
		return h[7:], true
	}
	return "", false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// serveOAuth serves mode oauth on addr: srv at /mcp behind the
// authorization server, with the ok tools and auth_stats (a read tool:
// "codes=N refreshes=M").
func serveOAuth(addr string, srv *mcp.Server, ttl time.Duration, preregistered string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	base := "http://" + ln.Addr().String()
	a := newAuthServer(base, ttl)
	a.preregistered = preregistered
	mcp.AddTool(srv, &mcp.Tool{Name: "auth_stats", Description: "Codes exchanged and refresh grants.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
			return text(a.stats()), nil, nil
		})
	mux := http.NewServeMux()
	mux.Handle("/mcp", a.routes(mux, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)))
	fmt.Printf("listening %s/mcp\n", base)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	return hs.Serve(ln)
}
