// Package shell is the shell tool group: run_command runs a bash command
// line in a served folder and returns its exit status and output.
//
// Its main is one call:
//
//	func main() { sdk.Serve(shell.New()) }
//
// A command runs as `/bin/bash -c <command>` with stdin on /dev/null, in its
// own process group (and, on Linux, with SIGKILL as its parent-death
// signal). When the command times out or its call is cancelled, and again
// when the shell exits, the whole group is stopped: SIGTERM, then SIGKILL
// after a short grace. So nothing the command started outlives the call,
// background jobs included, and a background job that keeps the output
// pipes open cannot make the call hang. A process that leaves the group
// (setsid) is out of reach; the call stops reading its output instead of
// waiting for it.
//
// Working directories resolve inside the served folders like writes do
// (package roots). stdout and stderr are captured separately, each capped
// to a head and a tail with a note of how much was cut. A non-zero exit is a
// normal result that says so; failing to start, a timeout and a
// cancellation are error results.
package shell
