package upstream

import "strings"

// Separator joins a server id and a tool name.
const Separator = "__"

// Namespace returns the name an upstream tool is registered under:
// <server>__<tool>.
func Namespace(server, tool string) string {
	return server + Separator + tool
}

// SplitName splits a namespaced tool name at its first "__". ok is false
// unless the part before it is a valid server id and the tool part is not
// empty. The tool part may itself contain "__".
func SplitName(namespaced string) (server, tool string, ok bool) {
	server, tool, found := strings.Cut(namespaced, Separator)
	if !found || tool == "" || !ValidID(server) {
		return "", "", false
	}
	return server, tool, true
}
