//go:build race

package search

// raceOn says the race detector is on: the evaluation then skips the slow
// naive baseline, which it only reports.
const raceOn = true
