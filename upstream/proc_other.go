//go:build !unix

package upstream

import "os/exec"

func setProcessGroup(*exec.Cmd) {}

func killGroup(int) {}
