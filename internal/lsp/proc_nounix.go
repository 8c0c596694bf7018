//go:build !unix

package lsp

import "os/exec"

// Without process groups (Windows), the server alone is killed.

func setGroup(*exec.Cmd)  {}
func leadsGroup(int) bool { return false }
func killGroup(int)       {}
