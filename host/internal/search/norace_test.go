//go:build !race

package search

const raceOn = false
