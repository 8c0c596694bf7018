package proctest

import "os"

// Kill kills the process pid (SIGKILL on Unix), for a test that holds a
// pid but not the *os.Process: a plugin or a child it found. Unlike
// syscall.Kill it builds for every system, so that the tests compile for
// go vet with GOOS=windows.
func Kill(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	defer p.Release()
	return p.Kill()
}
