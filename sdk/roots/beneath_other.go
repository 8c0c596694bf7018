//go:build !linux

package roots

import (
	"io/fs"
	"os"
)

const noFollowDir = 0

const haveBeneath = false

const pathOnly = 0

func openBeneath(*os.File, string, int, fs.FileMode) (*os.File, error) { return nil, errRacing }

func probeBeneath(*os.File) bool { return false }
