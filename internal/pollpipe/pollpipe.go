// Package pollpipe reads a pipe or a socket through the runtime's network
// poller.
//
// A goroutine blocked in read(2) on a blocking descriptor (the stdin a
// process is started with) keeps its P, its scheduler slot, until the
// runtime's monitor takes it back, and the monitor, asleep for up to 10 ms
// when a process has just started, is that late: meanwhile the goroutines
// ready to run wait for that slot, or queue behind whatever runs on the
// others. A read through the poller gives the slot back at once.
package pollpipe
