// Package report sums areas.
package report

import "example.com/fixture/geometry"

// Total sums the areas of rectangles (面積の合計).
func Total(sizes [][2]float64) float64 {
	var t float64
	for _, s := range sizes {
		t += /* 面積 */ geometry.Area(s[0], s[1])
	}
	return t
}
