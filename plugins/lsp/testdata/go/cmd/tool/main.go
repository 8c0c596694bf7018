package main

import (
	"fmt"

	"example.com/shapes/other"
	"example.com/shapes/report"
	"example.com/shapes/shape"
)

func main() {
	fmt.Println(shape.Area(2, 3), other.Area(1), report.Total([][2]float64{{1, 2}}))
}
