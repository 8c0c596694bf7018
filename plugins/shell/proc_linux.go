package shell

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// sysProcAttr puts the shell in a process group of its own, so the group
// can be signalled as one, and kills it if the plugin dies. Pdeathsig fires
// when the OS thread that started the child exits; Go keeps its threads
// unless a goroutine exits while locked to one, which this plugin never
// does. It covers the shell only: what the shell started is reached through
// the group.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// groupAlive reports whether a process of the group pgid is still running.
// Zombies do not count: an orphan's zombie waits for init to reap it, which
// some container inits never do.
func groupAlive(pgid int) bool {
	if !groupExists(pgid) {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	want := []byte(strconv.Itoa(pgid))
	for _, e := range entries {
		name := e.Name()
		if name[0] < '1' || name[0] > '9' {
			continue
		}
		stat, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parens.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(stat[i+1:])
		if len(f) < 4 || !bytes.Equal(f[2], want) {
			continue
		}
		if s := f[0]; len(s) == 1 && (s[0] == 'Z' || s[0] == 'X') {
			continue
		}
		return true
	}
	return false
}
