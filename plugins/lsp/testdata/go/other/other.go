// Package other has an Area of its own, which a rename of shape.Area leaves alone.
package other

// Area is the area of a circle of radius r, roughly.
func Area(r float64) float64 { return 3.14159 * r * r }
