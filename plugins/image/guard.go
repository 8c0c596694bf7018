package image

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/http/httpproxy"
)

// errNotPublic is matched by the error of a connection refused because its
// host is not on the public internet.
var errNotPublic = errors.New("not a public address")

// blockedError names the host and the address that was refused.
type blockedError struct {
	host string
	addr netip.Addr
}

func (e *blockedError) Error() string {
	if e.host == e.addr.String() {
		return fmt.Sprintf("%s is %s", e.host, errNotPublic)
	}
	return fmt.Sprintf("%s resolves to %s, %s", e.host, e.addr, errNotPublic)
}

func (e *blockedError) Unwrap() error { return errNotPublic }

// nonPublic are the IPv4 and IPv6 ranges, beyond what netip's predicates
// name, that are not the public internet: "this network", shared address
// space (carrier-grade NAT), IETF protocol assignments, documentation,
// benchmarking, reserved and broadcast; IPv4-compatible (deprecated),
// discard-only, local-use NAT64, Teredo, documentation and deprecated
// site-local.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("::/96"),
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2001::/32"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("fec0::/10"),
}

// Prefixes of IPv6 addresses that carry an IPv4 address, which decides.
var (
	nat64  = netip.MustParsePrefix("64:ff9b::/96")
	sixTo4 = netip.MustParsePrefix("2002::/16")
)

// public reports whether a is an address on the public internet: not
// loopback, private, link-local, multicast, unspecified or reserved, also
// when it is an IPv4 address wrapped in IPv6 (mapped, NAT64, 6to4).
func public(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || !a.IsGlobalUnicast() || a.IsPrivate() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	switch b := a.As16(); {
	case nat64.Contains(a):
		return public(netip.AddrFrom4([4]byte(b[12:16])))
	case sixTo4.Contains(a):
		return public(netip.AddrFrom4([4]byte(b[2:6])))
	}
	return true
}

// localName reports whether host names this machine without asking DNS.
func localName(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// resolver finds a host's addresses; net.DefaultResolver's LookupNetIP.
type resolver func(ctx context.Context, network, host string) ([]netip.Addr, error)

// addressPolicy says which hosts are public: how names resolve, and which
// addresses are public. Tests replace both.
type addressPolicy struct {
	lookup resolver
	public func(netip.Addr) bool
}

var defaultPolicy = addressPolicy{lookup: net.DefaultResolver.LookupNetIP, public: public}

// checkHost resolves host (an IP literal stands for itself) and refuses it
// unless every address it has is public; it returns the addresses.
func (ap addressPolicy) checkHost(ctx context.Context, host string) ([]netip.Addr, error) {
	if localName(host) {
		return nil, &blockedError{host: host, addr: netip.IPv6Loopback()}
	}
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		if !ap.public(a) {
			return nil, &blockedError{host: host, addr: a.Unmap()}
		}
		return []netip.Addr{a}, nil
	}
	addrs, err := ap.lookup(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	for _, a := range addrs {
		if !ap.public(a) {
			return nil, &blockedError{host: host, addr: a.Unmap()}
		}
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%s has no address", host)
	}
	return addrs, nil
}

// isLocal reports whether a provider URL is local: a host on a loopback,
// private, link-local or otherwise non-public address. Its image URLs may
// then be anything the provider is. The address decides, not the scheme:
// a public provider over plain http is not local, since anyone on the path
// could rewrite its answer to point the fetch inside the network. A name
// that does not resolve is not local; the request to it fails anyway.
func (ap addressPolicy) isLocal(ctx context.Context, u *url.URL) bool {
	_, err := ap.checkHost(ctx, u.Hostname())
	return errors.Is(err, errNotPublic)
}

// guardedTransport is the transport for image URLs of a provider that is
// not local: every connection it makes goes to a public address, checked
// on the address dialled (the one resolved is the one connected to).
// Through a proxy, which resolves names itself, the request's host is
// resolved and checked before the proxy is asked; the proxy's own address
// is the user's choice and is not checked.
func guardedTransport(ap addressPolicy) *http.Transport {
	return newGuard(ap, httpproxy.FromEnvironment()).transport()
}

// newGuard makes the guard of a transport whose proxies are proxies's.
func newGuard(ap addressPolicy, proxies *httpproxy.Config) *guard {
	g := &guard{
		policy:   ap,
		dialer:   &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second},
		proxyFor: proxies.ProxyFunc(),
		proxies:  map[string]bool{},
	}
	for _, raw := range []string{proxies.HTTPProxy, proxies.HTTPSProxy} {
		if p := parseProxy(raw); p != nil {
			g.proxies[hostPort(p)] = true
		}
	}
	return g
}

func (g *guard) transport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = g.proxy
	tr.DialContext = g.dial
	tr.MaxIdleConnsPerHost = 2
	return tr
}

type guard struct {
	policy   addressPolicy
	dialer   *net.Dialer
	proxyFor func(*url.URL) (*url.URL, error)
	// proxies are the host:port of the configured proxies: dialled
	// without a check, and refused as a request's own address.
	proxies map[string]bool
}

// proxy is the transport's Proxy: it checks the host of a request that
// goes through a proxy, and refuses one that would go straight to a
// proxy's address, which dial lets through.
func (g *guard) proxy(req *http.Request) (*url.URL, error) {
	p, err := g.proxyFor(req.URL)
	switch {
	case err != nil:
		return nil, err
	case p == nil && g.proxies[hostPort(req.URL)]:
		return nil, fmt.Errorf("%s is the proxy's own address: %w", hostPort(req.URL), errNotPublic)
	case p == nil:
		return nil, nil
	}
	if _, err := g.policy.checkHost(req.Context(), req.URL.Hostname()); err != nil {
		return nil, err
	}
	return p, nil
}

// parseProxy reads a proxy setting as httpproxy does (no scheme means
// http); nil for none or one that does not parse.
func parseProxy(raw string) *url.URL {
	if raw == "" {
		return nil
	}
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil
	}
	return u
}

// hostPort is the host:port a transport dials for u.
func hostPort(u *url.URL) string {
	if port := u.Port(); port != "" {
		return net.JoinHostPort(u.Hostname(), port)
	}
	port := map[string]string{"http": "80", "https": "443", "socks5": "1080", "socks5h": "1080"}[u.Scheme]
	return net.JoinHostPort(u.Hostname(), port)
}

func (g *guard) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if g.proxies[addr] {
		return g.dialer.DialContext(ctx, network, addr)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	addrs, err := g.policy.checkHost(ctx, host)
	if err != nil {
		return nil, err
	}
	var first error
	for _, a := range addrs {
		conn, err := g.dialer.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}
