//go:build cgo

package code_test

// withCgo is true in a build with cgo, where tree-sitter parses every
// language; nocgo_test.go sets it false.
const withCgo = true
