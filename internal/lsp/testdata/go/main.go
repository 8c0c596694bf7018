package main

import (
	"fmt"

	"example.com/fixture/geometry"
	"example.com/fixture/report"
)

func main() {
	fmt.Println("🍕 × 2 =", geometry.Area(2, 3), geometry.Square(4), report.Total([][2]float64{{1, 2}}))
}
