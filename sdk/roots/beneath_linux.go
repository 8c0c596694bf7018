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
// is renamed meanwhile. errNoBeneath means the kernel lacks openat2.
func openBeneath(dir *os.File, name string, flag int, perm fs.FileMode) (*os.File, error) {
	how := unix.OpenHow{
		Flags:   uint64(flag | unix.O_CLOEXEC),
		Mode:    uint64(syscallMode(perm)),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	}
	if flag&os.O_CREATE == 0 {
		how.Mode = 0
	}
	for {
		fd, err := unix.Openat2(int(dir.Fd()), name, &how)
		switch {
		case err == nil:
			return os.NewFile(uintptr(fd), name), nil
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
			// EAGAIN: a rename raced the lookup; the kernel asks to retry.
			continue
		case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM) && flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE) == 0, errors.Is(err, unix.E2BIG):
			// EPERM on a read: a seccomp filter refusing openat2.
			return nil, errNoBeneath
		case errors.Is(err, unix.EXDEV):
			return nil, &fs.PathError{Op: "openat", Path: name, Err: errEscapes}
		default:
			return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
		}
	}
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
