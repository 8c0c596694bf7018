// Package geometry measures shapes.
package geometry

// Area returns the area of a w × h rectangle.
func Area(w, h float64) float64 {
	return w * h
}

// Square returns the area of a square of side s («côté»).
func Square(s float64) float64 { return Area(s, s) }
