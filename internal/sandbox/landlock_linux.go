package sandbox

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rulesetAttr is struct landlock_ruleset_attr up to its scoped field (ABI
// 6); older kernels accept it as long as the fields they do not know are 0.
type rulesetAttr struct {
	handledFS  uint64
	handledNet uint64
	scoped     uint64
}

// Landlock's file-system rights that change the file system. Reads
// (READ_FILE, READ_DIR) are never handled, so they stay allowed.
const (
	fsWriteABI1 = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_CHAR |
		unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO |
		unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK | unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	// fileRights are the rights that apply to a file (not a directory) in
	// a rule; landlock_add_rule refuses directory rights on a file.
	fileRights = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE |
		unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
)

// landlockABI is the kernel's Landlock ABI version, or 0 when it has none
// (not built in, or not enabled at boot).
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// writeRights are the write rights the kernel of ABI abi knows. From ABI 5
// they include IOCTL_DEV: ioctl on a character or block device opened in
// the domain is then allowed only on the Writable ones (the kernel still
// allows a few harmless commands, such as FIONREAD and FIOCLEX, on every
// file, and does not check descriptors opened before the domain).
func writeRights(abi int) uint64 {
	r := uint64(fsWriteABI1)
	if abi >= 2 {
		r |= unix.LANDLOCK_ACCESS_FS_REFER // renames and links across folders
	}
	if abi >= 3 {
		r |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		r |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return r
}

// restrictThread applies a Landlock domain to the calling OS thread only:
// writes only beneath writable (when writable is non-nil) and execution only
// of or beneath executable (when executable is non-nil). With writable, from
// ABI 6 on, signals and abstract unix sockets are scoped to the domain too. It sets the
// thread's no_new_privs, which Landlock requires. The caller must be locked
// to its thread for good.
func restrictThread(abi int, writable, executable []string) error {
	var handled uint64
	if writable != nil {
		handled |= writeRights(abi)
	}
	if executable != nil {
		handled |= unix.LANDLOCK_ACCESS_FS_EXECUTE
	}
	if handled == 0 {
		return nil
	}
	attr := rulesetAttr{handledFS: handled}
	if writable != nil && abi >= 6 {
		// A command may signal and reach abstract sockets of its own
		// processes only: it cannot kill a plugin or the host (to make a
		// plugin relaunch, say), nor talk to an abstract socket outside.
		attr.scoped = unix.LANDLOCK_SCOPE_SIGNAL | unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	ruleset := int(fd)
	defer unix.Close(ruleset)
	add := func(path string, rights uint64) error {
		f, err := os.OpenFile(path, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && !fi.IsDir() {
			rights &= fileRights
		}
		if rights == 0 {
			return nil
		}
		rule := unix.LandlockPathBeneathAttr{Allowed_access: rights, Parent_fd: int32(f.Fd())}
		if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH,
			uintptr(unsafe.Pointer(&rule)), 0, 0, 0); errno != 0 {
			return fmt.Errorf("landlock_add_rule %s: %w", path, errno)
		}
		return nil
	}
	for _, p := range writable {
		// A folder that does not exist has nothing to allow.
		if err := add(p, handled&^unix.LANDLOCK_ACCESS_FS_EXECUTE); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	for _, p := range executable {
		if err := add(p, handled&unix.LANDLOCK_ACCESS_FS_EXECUTE); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if err := noNewPrivs(); err != nil {
		return err
	}
	// The raw syscall restricts this thread alone; landlock_restrict_self
	// has no flag here that would reach the process's other threads.
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

// noNewPrivs sets no_new_privs on the calling thread only.
func noNewPrivs() error {
	if _, _, errno := unix.RawSyscall6(unix.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0); errno != 0 {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", errno)
	}
	return nil
}
