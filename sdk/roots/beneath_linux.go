package roots

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// noFollowDir opens a directory, refusing a symbolic link in its place.
const noFollowDir = unix.O_DIRECTORY | unix.O_NOFOLLOW

const haveBeneath = true

// pathOnly opens a path to stat it, without reading it.
const pathOnly = unix.O_PATH

// openBeneath opens name relative to dir with openat2 and RESOLVE_BENEATH
// (no magic links either): the kernel refuses any lookup that would leave
// dir, through "..", an absolute path or a symlink, also when a directory
// is renamed meanwhile. errRacing means renames kept racing the lookup:
// the caller takes os.Root for that open.
func openBeneath(dir *os.File, name string, flag int, perm fs.FileMode) (*os.File, error) {
	how := unix.OpenHow{
		Flags:   uint64(flag | unix.O_CLOEXEC),
		Mode:    uint64(syscallMode(perm)),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	}
	if flag&os.O_CREATE == 0 {
		how.Mode = 0
	}
	// EAGAIN: a rename raced the lookup and the kernel asks to retry; a
	// lookup that keeps racing goes to os.Root instead (errRacing for
	// this one open only: the caller falls back, openat2 stays on).
	for range 64 {
		fd, err := unix.Openat2(int(dir.Fd()), name, &how)
		switch {
		case err == nil:
			return os.NewFile(uintptr(fd), name), nil
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
			continue
		case errors.Is(err, unix.EXDEV):
			return nil, &fs.PathError{Op: "openat", Path: name, Err: errEscapes}
		default:
			return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
		}
	}
	return nil, errRacing
}

// probeBeneath reports whether openat2 works on dir: a kernel without it
// (ENOSYS) or a seccomp filter refusing it (EPERM) is found once, when a
// folder is opened, not by an error on some later file.
func probeBeneath(dir *os.File) bool {
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS}
	fd, err := unix.Openat2(int(dir.Fd()), ".", &how)
	if err != nil {
		return false
	}
	_ = unix.Close(fd)
	return true
}

func syscallMode(m fs.FileMode) uint32 {
	o := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		o |= syscall.S_ISUID
	}
	if m&fs.ModeSetgid != 0 {
		o |= syscall.S_ISGID
	}
	if m&fs.ModeSticky != 0 {
		o |= syscall.S_ISVTX
	}
	return o
}
