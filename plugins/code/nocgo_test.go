//go:build !cgo

package code_test

// withCgo is false in a build without cgo, where only Go sources are
// parsed (by go/parser); cgo_test.go sets it true.
const withCgo = false
