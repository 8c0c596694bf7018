package upstream

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// Separator joins a server id and a tool name.
const Separator = "__"

// MaxName is the longest name an upstream tool is registered under: longer
// names cost a model's context on every list and are refused by some
// clients.
const MaxName = 64

// MaxIDLength is the longest server id, so that a shortened name keeps the
// whole id and the first "__" still ends it.
const MaxIDLength = 32

// Namespace returns the name an upstream tool is registered under:
// <server>__<tool>, or, when that is longer than MaxName or holds a
// character other than A-Z, a-z, 0-9, "_" and "-" (the names every client
// accepts; MCP also allows "."), a readable prefix of it with those
// characters made "_", then "_" and 8 hex digits of its sha256: stable
// across runs, and two different tools never share one (a collision of
// the hash is refused when the server's tools are listed).
func Namespace(server, tool string) string {
	name := server + Separator + tool
	clean := strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf && (r == '_' || r == '-' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return r
		}
		return '_'
	}, name)
	if len(name) <= MaxName && clean == name {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	suffix := "_" + hex.EncodeToString(sum[:4])
	prefix := clean[:min(len(clean), MaxName-len(suffix))]
	// A prefix ending in "_" or "-" reads badly before "_": trim them, but
	// never into the separator after the id.
	if trimmed := strings.TrimRight(prefix, "_-"); len(trimmed) > len(server)+len(Separator) {
		prefix = trimmed
	}
	return prefix + suffix
}

// SplitName splits a namespaced tool name at its first "__". ok is false
// unless the part before it is a valid server id and the tool part is not
// empty. The tool part may itself contain "__". For a shortened name (see
// Namespace) the tool part is not the upstream name: look the name up in
// the server's tools.
func SplitName(namespaced string) (server, tool string, ok bool) {
	server, tool, found := strings.Cut(namespaced, Separator)
	if !found || tool == "" || !ValidID(server) {
		return "", "", false
	}
	return server, tool, true
}
