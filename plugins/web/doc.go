// Package web is the web tool group: fetch_url reads a web page as clean,
// paged markdown, and web_search asks a configured search provider.
//
// Its main is one call:
//
//	func main() { sdk.Serve(web.New()) }
//
// Both tools are read tools marked open-world. The host leaves the group
// out when it runs with --web=false; should a call arrive anyway, the tools
// refuse it.
//
// fetch_url accepts only http and https, for the URL and every redirect (at
// most 5), bounds the whole fetch with a timeout (30 s by default), reads at
// most 10 MiB of body, decodes the body's charset to UTF-8, converts HTML to
// markdown without the page's chrome (scripts, styles, navigation, banners,
// hidden elements) with absolute links, returns other textual types as they
// are and refuses binary ones. Its text is paged in characters; a call that
// continues a page reads the text the previous call fetched, kept in a
// small bounded cache, so that pages line up.
//
// web_search reads its provider from the "web_search" entry of config.json
// in the host's config dir:
//
//	{"web_search": {"provider": "searxng", "url": "https://searx.example.org"}}
//	{"web_search": {"provider": "brave", "api_key_env": "BRAVE_API_KEY"}}
//
// provider is "searxng" (url required; the instance must enable the json
// format) or "brave" (url defaults to the Brave Search API; the key is
// api_key, or the variable named by api_key_env, BRAVE_API_KEY by default).
// RAMABANA_SEARCH_PROVIDER and RAMABANA_SEARCH_URL override the file; the
// host passes both to plugins. It passes plugins only an allow-list of
// environment variables, so the API key's variable reaches the plugin only
// when the host is started with --plugin-env NAME.
//
// Failures a model can act on (a refused scheme, a timeout, an HTTP error
// status, a binary body, no provider configured) are error results that say
// what to do.
package web
