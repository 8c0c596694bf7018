// Package report sums areas.
package report

import "example.com/shapes/shape"

// Total sums the areas of rectangles.
func Total(sizes [][2]float64) float64 {
	var t float64
	for _, s := range sizes {
		t += shape.Area(s[0], s[1])
	}
	return t
}
