//go:build !unix

package roots

const nonblock = 0
