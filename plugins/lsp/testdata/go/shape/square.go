package shape

// Square returns the area of a square of side s.
func Square(s float64) float64 { return Area(s, s) }
