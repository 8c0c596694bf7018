package host

// Hooks for the external tests (package host_test), which need the MCP
// server of package mcpserver: it imports host, so they cannot live in
// package host.
var (
	StartHost  = startHost
	TestPlugin = func() string { return testPlugin }
)
