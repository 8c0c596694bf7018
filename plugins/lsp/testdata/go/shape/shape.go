// Package shape measures shapes.
package shape

// Area returns the area of a w × h rectangle.
func Area(w, h float64) float64 {
	return w * h
}
