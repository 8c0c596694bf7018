package image

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/http/httpproxy"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

func TestPublic(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]bool{
		"8.8.8.8": true, "1.1.1.1": true, "2606:4700:4700::1111": true, "::ffff:8.8.8.8": true,
		"64:ff9b::808:808": true, "2002:808:808::1": true,
		"127.0.0.1": false, "127.8.9.10": false, "::1": false, "0.0.0.0": false, "::": false,
		"10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false, "fd00::1": false,
		"169.254.169.254": false, "fe80::1": false, "100.64.0.1": false, "224.0.0.1": false,
		"255.255.255.255": false, "240.0.0.1": false, "192.0.2.1": false, "198.18.0.1": false,
		"::ffff:127.0.0.1": false, "::ffff:169.254.169.254": false, "64:ff9b::a00:1": false,
		"2002:a00:1::1": false, "2001:db8::1": false, "ff02::1": false, "0.1.2.3": false,
		"::7f00:1": false, "::808:808": false, "64:ff9b:1::a00:1": false,
	} {
		if got := public(netip.MustParseAddr(addr)); got != want {
			t.Errorf("public(%s) = %v, want %v", addr, got, want)
		}
	}
}

// fakeDNS resolves names from a table.
func fakeDNS(table map[string]string) resolver {
	return func(_ context.Context, _, host string) ([]netip.Addr, error) {
		var out []netip.Addr
		for _, a := range strings.Split(table[host], ",") {
			if a != "" {
				out = append(out, netip.MustParseAddr(a))
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("lookup %s: no such host", host)
		}
		return out, nil
	}
}

func TestCheckHost(t *testing.T) {
	t.Parallel()
	ap := addressPolicy{public: public, lookup: fakeDNS(map[string]string{
		"cdn.example":   "8.8.8.8,2606:4700:4700::1111",
		"inner.example": "10.0.0.7",
		"mixed.example": "8.8.8.8,127.0.0.1",
	})}
	for host, want := range map[string]string{
		"cdn.example":     "",
		"8.8.8.8":         "",
		"inner.example":   "inner.example resolves to 10.0.0.7, not a public address",
		"mixed.example":   "mixed.example resolves to 127.0.0.1, not a public address",
		"localhost":       "localhost resolves to ::1",
		"a.b.localhost.":  "not a public address",
		"169.254.169.254": "169.254.169.254 is not a public address",
		"[::1]":           "not a public address",
		"nowhere.example": "no such host",
	} {
		_, err := ap.checkHost(context.Background(), host)
		if (err == nil) != (want == "") || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("checkHost(%s) = %v, want %q", host, err, want)
		}
	}
	for raw, want := range map[string]bool{
		"http://api.example.org": false, "http://127.0.0.1:11434": true, "https://127.0.0.1:8080": true, "https://localhost": true,
		"https://inner.example": true, "https://cdn.example": false, "https://nowhere.example": false,
	} {
		u, _ := url.Parse(raw)
		if got := ap.isLocal(context.Background(), u); got != want {
			t.Errorf("isLocal(%s) = %v, want %v", raw, got, want)
		}
	}
}

// TestImageURLGuard plays a provider that is not local handing out image
// URLs that lead to this machine: every one is refused, on the address
// dialled, redirects included. The tests' "public" addresses are
// 127.0.0.1 and names that resolve to it; 127.0.0.2 and everything else
// that public refuses stand for the local network.
func TestImageURLGuard(t *testing.T) {
	t.Parallel()
	png := encoded(t, "png", 2, 2)
	images := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if to := r.URL.Query().Get("to"); to != "" {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		_, _ = w.Write(png)
	}))
	t.Cleanup(images.Close)
	port := images.URL[strings.LastIndex(images.URL, ":")+1:]
	at := func(host, query string) string { return "https://" + host + ":" + port + "/img" + query }

	ap := addressPolicy{
		lookup: fakeDNS(map[string]string{
			"good.example":   "127.0.0.1",
			"inner.example":  "127.0.0.2",
			"rebind.example": "127.0.0.1,127.0.0.2",
		}),
		public: func(a netip.Addr) bool { return a == netip.MustParseAddr("127.0.0.1") },
	}
	targets := []struct{ url, want string }{
		{at("good.example", ""), ""},
		{at("127.0.0.1", ""), ""},
		{"http://good.example:" + port + "/img", "is not https"},
		{at("127.0.0.2", ""), "leads off the public internet (127.0.0.2 is not a public address); refused"},
		{at("inner.example", ""), "(inner.example resolves to 127.0.0.2, not a public address)"},
		{at("rebind.example", ""), "rebind.example resolves to 127.0.0.2"},
		{at("localhost", ""), "localhost resolves to ::1"},
		{at("good.example", "?to="+url.QueryEscape(at("inner.example", ""))), "inner.example resolves to 127.0.0.2"},
		{at("good.example", "?to="+url.QueryEscape("http://good.example:"+port+"/img")), "redirected to a URL of a scheme not allowed here"},
	}
	provider := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i, _ := strconv.Atoi(strings.Split(r.URL.Path, "/")[1])
		_ = json.NewEncoder(w).Encode(map[string]any{"data": []map[string]any{{"url": targets[i].url}}})
	}))
	t.Cleanup(provider.Close)

	// The provider is https on an address taken for public: not local.
	s := testServer(nil)
	s.policy = addressPolicy{lookup: ap.lookup, public: func(netip.Addr) bool { return true }}
	s.api.Transport = provider.Client().Transport
	tr := guardedTransport(ap)
	tr.TLSClientConfig = images.Client().Transport.(*http.Transport).TLSClientConfig
	tr.TLSClientConfig.ServerName = "example.com" // the test certificate's name
	s.guarded = &http.Client{Transport: tr, CheckRedirect: redirectsTo("https")}
	for i, tc := range targets {
		t.Run(tc.url, func(t *testing.T) {
			t.Parallel()
			cfg := writeConfig(t, fmt.Sprintf(`{"image": {"url": "%s/%d", "model": "m"}}`, provider.URL, i))
			g := connect(t, s, sdk.Host{Web: true, ConfigDir: cfg})
			res := sdktest.Call(t, g, "generate_image", map[string]any{"prompt": "a cat"})
			if sdktest.Outcome(t, res.Text(), res.IsError, tc.want) && imageOf(res) == nil {
				t.Error("no image")
			}
		})
	}
}

// TestGuardThroughProxy: through a proxy, the image URL's host is checked
// before the proxy is asked, and the proxy itself may be on any address.
func TestGuardThroughProxy(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var asked []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, r.Host)
		w.WriteHeader(http.StatusTeapot)
	}))
	t.Cleanup(proxy.Close)
	ap := addressPolicy{lookup: fakeDNS(map[string]string{"cdn.example": "8.8.8.8", "inner.example": "10.0.0.1"}), public: public}
	g := newGuard(ap, &httpproxy.Config{HTTPProxy: proxy.URL})
	c := &http.Client{Transport: g.transport()}
	// Plain http, so that the proxy answers the request itself.
	resp, err := c.Get("http://cdn.example/img")
	if err != nil {
		t.Fatalf("through the proxy: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTeapot {
		t.Errorf("status %d", resp.StatusCode)
	}
	if _, err := c.Get("http://inner.example/img"); !errors.Is(err, errNotPublic) {
		t.Errorf("inner.example through the proxy: %v", err)
	}
	// Straight to the proxy's address, as an image URL: refused.
	if _, err := c.Get(proxy.URL + "/admin"); !errors.Is(err, errNotPublic) {
		t.Errorf("the proxy's own address: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || asked[0] != "cdn.example" {
		t.Errorf("the proxy was asked for %q", asked)
	}
}

func TestEndpoint(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"https://api.openai.com":                         "https://api.openai.com/v1/images/generations",
		"https://api.openai.com/":                        "https://api.openai.com/v1/images/generations",
		"https://api.openai.com/v1":                      "https://api.openai.com/v1/images/generations",
		"http://localhost:8080/v1/":                      "http://localhost:8080/v1/images/generations",
		"http://localhost:8080/v1/images/generations":    "http://localhost:8080/v1/images/generations",
		"https://x.azure.example/openai?api-version=1#f": "https://x.azure.example/openai/images/generations?api-version=1",
		"ftp://x":   "",
		"localhost": "",
		"https://":  "",
	} {
		u, err := endpoint(raw)
		got := ""
		if err == nil {
			got = u.String()
		}
		if got != want {
			t.Errorf("endpoint(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
}
