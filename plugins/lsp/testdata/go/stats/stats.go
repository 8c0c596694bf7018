// Package stats averages areas.
package stats

import "example.com/shapes/shape"

// Mean is the mean area of sizes.
func Mean(sizes [][2]float64) float64 {
	if len(sizes) == 0 {
		return 0
	}
	var sum float64
	for _, s := range sizes {
		sum += shape.Area(s[0], s[1])
	}
	return sum / float64(len(sizes))
}
