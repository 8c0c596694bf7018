package report

import "example.com/shapes/shape"

// Largest is the largest area of sizes.
func Largest(sizes [][2]float64) float64 {
	var best float64
	for _, s := range sizes {
		// Area here is a local, not shape.Area.
		Area := shape.Area(s[0], s[1])
		best = max(best, Area)
	}
	return best
}
