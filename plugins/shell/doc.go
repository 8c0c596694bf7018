// Package shell is the shell tool group: run_command runs a bash command
// line in a served folder and returns its exit status and output.
//
// Its main is one call:
//
//	func main() { sdk.Serve(shell.New()) }
//
// A command runs as `/bin/bash -c <command>` with stdin on /dev/null,
// started by package sandbox: in its own session and process group (with no
// controlling terminal), with SIGKILL as its
// parent-death signal, without capabilities, as pid 1 of its own pid
// namespace where the kernel allows (so when the shell ends, or the plugin
// is killed, the kernel kills everything it started, setsid and double
// forks included), and, unless the user gave --sandbox=off, under Landlock
// with writes only inside the served folders, its TMPDIR and the device
// files sandbox.DeviceFiles names (/dev/null and the terminals, not
// /dev/shm). Where
// namespaces are refused, the plugin becomes a child subreaper and ends the
// orphans tagged with the command's marker instead. When the command times
// out or its call is cancelled, and when the shell exits leaving processes
// behind, everything it started is stopped: SIGTERM (the shell itself,
// which as a namespace's init ignores it, is frozen), then SIGKILL after a
// short grace.
//
// The command's environment is the plugin's (which the host filtered down
// to its allow-list) without go-plugin's and the SDK's own variables, plus
// TMPDIR, a private folder made for the call and removed after it.
//
// Working directories resolve inside the served folders like writes do
// (package roots). stdout and stderr are captured separately, each capped
// to a head and a tail with a note of how much was cut. A non-zero exit is a
// normal result that says so; failing to start, a timeout and a
// cancellation are error results.
//
// Every process of the server's binary links every bundled group and runs
// its package init, so the input schema (sdk.LazySchemaFor) and envName are
// made at their first use, not at init.
package shell
