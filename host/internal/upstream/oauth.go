package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/ramabana/ramabana-mcp/host/internal/cfgfile"
)

// OAuth 2.1 for remote servers (type http), with the go-sdk's
// authorization code handler: protected resource and authorization server
// discovery, dynamic client registration, PKCE, refresh tokens.
//
// `ramabana-mcp upstream login ID` (Login) runs the flow once: it prints
// the authorization URL, waits for the browser's redirect on a loopback
// port, and keeps what the flow gave (the client registration, the token
// endpoint, the tokens) in Tokens. The server then sends the kept access
// token, refreshes it when it expires and keeps the new one; it never runs
// the flow itself (its stdout may be an MCP stream, and nobody may be at a
// browser): a server that refuses the token is ErrNeedsAuth, whose message
// says to log in again.

// Tokens keeps OAuth tokens of remote servers, one file per server id,
// <Dir>/<id>.json, mode 0600 in a 0700 folder. The zero value keeps none.
type Tokens struct {
	Dir string
}

// ConfigTokens are the tokens kept in the config dir cfg: cfg/tokens.
func ConfigTokens(cfg string) Tokens { return Tokens{Dir: filepath.Join(cfg, "tokens")} }

// keptToken is a tokens file: what refreshing the token needs, and the
// token. It is for the server URL it was issued for only.
type keptToken struct {
	URL          string        `json:"url"`
	ClientID     string        `json:"client_id"`
	ClientSecret string        `json:"client_secret,omitempty"`
	AuthURL      string        `json:"auth_url"`
	TokenURL     string        `json:"token_url"`
	AuthStyle    int           `json:"auth_style"`
	Scopes       []string      `json:"scopes,omitempty"`
	Token        *oauth2.Token `json:"token"`
}

func (k *keptToken) config() *oauth2.Config {
	return &oauth2.Config{ClientID: k.ClientID, ClientSecret: k.ClientSecret, Scopes: k.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: k.AuthURL, TokenURL: k.TokenURL, AuthStyle: oauth2.AuthStyle(k.AuthStyle)}}
}

func (t Tokens) file(id string) string { return filepath.Join(t.Dir, id+".json") }

// load returns the token kept for server id at url.
func (t Tokens) load(id, url string) (*keptToken, bool) {
	if t.Dir == "" || !ValidID(id) {
		return nil, false
	}
	b, err := os.ReadFile(t.file(id))
	if err != nil {
		return nil, false
	}
	var k keptToken
	if json.Unmarshal(b, &k) != nil || k.Token == nil || k.URL != url {
		return nil, false
	}
	return &k, true
}

// save keeps k for server id, whole or not at all, readable by the user
// alone.
func (t Tokens) save(id string, k *keptToken) error {
	if t.Dir == "" || !ValidID(id) {
		return fmt.Errorf("tokens: %q is not a server id", id)
	}
	b, err := json.MarshalIndent(k, "", "  ")
	if err != nil {
		return err
	}
	return cfgfile.Replace(t.Dir, id+".json", b)
}

// Forget removes the token kept for server id.
func (t Tokens) Forget(id string) error {
	if t.Dir == "" || !ValidID(id) {
		return nil
	}
	err := os.Remove(t.file(id))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// handler is the OAuth handler of a connection to s (its ${VAR}s
// expanded): nil when no token is kept for it. client makes the refresh
// requests.
func (t Tokens) handler(s Server, client *http.Client) auth.OAuthHandler {
	k, ok := t.load(s.ID, s.URL)
	if !ok {
		return nil
	}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, client)
	return &keptAuth{id: s.ID, source: &keepingSource{ctx: ctx, next: k.config().TokenSource(ctx, k.Token), tokens: t, id: s.ID, url: s.URL, kept: k}}
}

// keptAuth is the server's OAuth handler: the kept token, refreshed as
// it expires; a refusal is ErrNeedsAuth.
type keptAuth struct {
	id     string
	source oauth2.TokenSource
}

func (a *keptAuth) TokenSource(context.Context) (oauth2.TokenSource, error) { return a.source, nil }

func (a *keptAuth) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	if resp != nil {
		_ = resp.Body.Close()
	}
	return fmt.Errorf("%w: the server refused the kept OAuth token; run `ramabana-mcp upstream login %s`", ErrNeedsAuth, a.id)
}

// keepingSource keeps each new token next gives (a refresh) in tokens.
// A refresh that fails may have used a refresh token that another
// process (another ramabana-mcp with the same config) rotated: the token
// kept on disk then, if newer, is taken up and tried once.
type keepingSource struct {
	ctx     context.Context // for refreshes: the HTTP client
	tokens  Tokens
	id, url string

	mu   sync.Mutex
	next oauth2.TokenSource
	kept *keptToken
}

func (s *keepingSource) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tok, err := s.next.Token()
	if err != nil {
		if k, ok := s.tokens.load(s.id, s.url); ok && k.Token.AccessToken != s.kept.Token.AccessToken {
			s.kept, s.next = k, k.config().TokenSource(s.ctx, k.Token)
			tok, err = s.next.Token()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: refreshing the OAuth token failed (%w); run `ramabana-mcp upstream login %s`", ErrNeedsAuth, err, s.id)
	}
	if tok.AccessToken != s.kept.Token.AccessToken {
		k := *s.kept
		k.Token = tok
		_ = s.tokens.save(s.id, &k) // not kept: this process still has it
		s.kept = &k
	}
	return tok, nil
}

// LoginOptions are Login's.
type LoginOptions struct {
	// Out gets the authorization URL and what Login waits for.
	Out io.Writer
	// Client makes the flow's requests (discovery, registration, token);
	// nil means http.DefaultClient.
	Client *http.Client
	// ClientID, when set, is a client registered with the authorization
	// server beforehand (one that offers no dynamic registration), with
	// ClientSecret for a confidential one. Its redirect URI is
	// http://127.0.0.1:RedirectPort/callback.
	ClientID, ClientSecret string
	// RedirectPort is the loopback port the redirect comes to; 0 picks a
	// free one (authorization servers accept any port on a loopback
	// redirect, RFC 8252; a pre-registered client may need a fixed one).
	RedirectPort int
}

// Login runs the OAuth authorization code flow for the remote server s
// (type http): it connects, and when the server asks for authorization,
// registers a client (dynamic client registration, unless opts names a
// client registered beforehand), prints the
// authorization URL to opts.Out and waits on a loopback port for the
// browser's redirect, exchanges the code (PKCE) and keeps the tokens in
// tokens. It returns the server's tools, listed with the new token. ctx
// bounds the whole (the user's time at the browser included).
func Login(ctx context.Context, s Server, conn ConnectOptions, tokens Tokens, opts LoginOptions) ([]Tool, error) {
	if s.Type != TypeHTTP {
		return nil, fmt.Errorf("MCP server %q is a %s server: OAuth is for url servers of type http", s.ID, s.Type)
	}
	if tokens.Dir == "" {
		return nil, errors.New("no folder to keep tokens in")
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", fmt.Sprint(opts.RedirectPort)))
	if err != nil {
		return nil, fmt.Errorf("listen for the redirect: %w", err)
	}
	defer ln.Close()
	redirect := "http://" + ln.Addr().String() + "/callback"
	results := make(chan *auth.AuthorizationResult, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		if e := q.Get("error"); e != "" {
			http.Error(w, "authorization failed: "+e+" "+q.Get("error_description"), http.StatusBadRequest)
			return
		}
		select {
		case results <- &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}:
		default:
		}
		fmt.Fprintln(w, "ramabana-mcp is authorized. You can close this page.")
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	out := opts.Out
	if out == nil {
		out = io.Discard
	}
	var (
		keptMu sync.Mutex
		kept   *keptToken // the newest token: a refresh during the login replaces it (and may rotate the refresh token)
	)
	var preregistered *oauthex.ClientCredentials
	if opts.ClientID != "" {
		preregistered = &oauthex.ClientCredentials{ClientID: opts.ClientID}
		if opts.ClientSecret != "" {
			preregistered.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: opts.ClientSecret}
		}
	}
	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		PreregisteredClient: preregistered,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "ramabana-mcp", RedirectURIs: []string{redirect}, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}},
		RedirectURL: redirect,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			fmt.Fprintf(out, "Open this URL in a browser to authorize ramabana-mcp for MCP server %q:\n\n  %s\n\nwaiting for the redirect to %s ...\n", s.ID, args.URL, redirect)
			select {
			case r := <-results:
				return r, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
		RequestRefreshToken: true,
		Client:              opts.Client,
		NewTokenSource: func(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			keptMu.Lock()
			kept = &keptToken{URL: s.URL, ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, AuthURL: cfg.Endpoint.AuthURL,
				TokenURL: cfg.Endpoint.TokenURL, AuthStyle: int(cfg.Endpoint.AuthStyle), Scopes: cfg.Scopes, Token: tok}
			keptMu.Unlock()
			next := cfg.TokenSource(ctx, tok)
			return tokenFunc(func() (*oauth2.Token, error) {
				t, err := next.Token()
				if err == nil {
					keptMu.Lock()
					kept.Token = t
					keptMu.Unlock()
				}
				return t, err
			}), nil
		},
	})
	if err != nil {
		return nil, err
	}
	conn.OAuth = handler
	conn.Tokens = Tokens{} // the flow, not a kept token
	c, err := Connect(ctx, s, conn)
	if err != nil {
		return nil, err
	}
	tools, err := c.Tools(ctx)
	// Closed before the token is kept: ending the session is a request
	// too, which may refresh the token (and rotate the refresh token).
	_ = c.Close()
	if err != nil {
		return nil, err
	}
	keptMu.Lock()
	defer keptMu.Unlock()
	if kept == nil {
		return nil, fmt.Errorf("MCP server %q did not ask for authorization: nothing to keep", s.ID)
	}
	if err := tokens.save(s.ID, kept); err != nil {
		return nil, fmt.Errorf("keep the token: %w", err)
	}
	return tools, nil
}

// tokenFunc is a function as an oauth2.TokenSource.
type tokenFunc func() (*oauth2.Token, error)

func (f tokenFunc) Token() (*oauth2.Token, error) { return f() }
