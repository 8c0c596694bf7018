// Package image is the image tool group: generate_image asks an
// OpenAI-compatible images API for a picture and returns it as MCP image
// content, and with --write saves it inside a served folder.
//
// Its main is one call:
//
//	func main() { sdk.Serve(image.New()) }
//
// generate_image is an act tool marked open-world: read-only servers list
// it, and the host leaves it out with --web=false (should a call arrive
// anyway, the tool refuses it). It is listed whenever the web is allowed,
// whether a provider is configured or not; without one, a call fails with
// a message saying what to put in the config file.
//
// The provider is the "image" entry of config.json in the host's config
// dir:
//
//	{"image": {"url": "https://api.openai.com", "model": "gpt-image-1", "key_env": "OPENAI_API_KEY"}}
//
// url is the API's base URL: one without a path gets /v1, and
// /images/generations is added unless the path ends with it already.
// model is required. key_env names the environment variable that holds the
// API key (RAMABANA_IMAGE_KEY by default, and then no key is sent when it
// is unset); the host passes plugins only an allow-list of environment
// variables, so the key reaches the plugin only when the host is started
// with --plugin-env NAME. size (default 1024x1024) and timeout_seconds
// (default 120, at most 600) are optional; any other key is an error, so
// that a typo does not go unnoticed. The key is sent as a bearer token to
// that URL alone, and is replaced by "[redacted]" in every message.
//
// A call POSTs {model, prompt, size, n: 1, response_format: "b64_json"};
// a provider that refuses response_format (gpt-image models) is asked
// again without it. The answer's b64_json is decoded; a url answer is
// downloaded instead, without the key. An image must be PNG, JPEG or WebP
// by its bytes, whatever the answer claims, and at most 16 MiB.
//
// The provider URL is the user's, so it may be anywhere, a local server
// included. An image URL is the provider's answer, so unless the provider
// is itself local (on a loopback, private or link-local
// address), it must be https and resolve to public addresses only: the
// check is made on the address actually dialled, every redirect included,
// so a DNS answer that changes between check and connect does not reach
// the local network; through a proxy, the name is resolved and checked
// before the proxy is asked.
//
// Every process of the server's binary links every bundled group and runs
// its package init, so the input schema (sdk.LazySchemaFor) and sizeRE are
// made at their first use, not at init.
package image
