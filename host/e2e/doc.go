// Package e2e holds the end-to-end tests: they build the real binary
// (cmd/ramabana-mcp) with the test plugin and the test upstream server once,
// and drive it with the go-sdk client over stdio and HTTP, as a user's MCP
// client would. It has no code but its tests.
package e2e
