//go:build !race

package e2e

var raceFlags []string
