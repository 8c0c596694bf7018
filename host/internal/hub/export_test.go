package hub

// Hooks for the external tests (package hub_test), which need the MCP
// server of package mcpserver: it imports host, so they cannot live in
// package hub.
var (
	StartHost  = startHost
	TestPlugin = func() string { return testPlugin }
	CopyFile   = copyFile
)
