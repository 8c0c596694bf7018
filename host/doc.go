// Package host is ramabana-mcp's server, and the package to start reading
// from. [Config] is everything the server is started with (cmd/ramabana-mcp
// fills it from the command line); [Run] serves it: it opens the vault and
// builds the one outbound gate, sets up the log and the telemetry, loads the
// upstream servers' config, starts the hub (package hub: the plugins, the
// catalog, the one call path), mounts the ask agent, and serves the MCP
// server (package mcpserver) over stdio or HTTP (package transport) until
// its context ends, then stops everything in order. [PluginCommand] runs the
// plugin subcommands, `plugin serve <group>` among them, which the hub uses
// to run each bundled group in a process of its own.
package host
