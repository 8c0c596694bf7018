// Command hello prints hello: what TestBuildSharesALink builds.
package main

import "fmt"

func main() { fmt.Println("hello") }
