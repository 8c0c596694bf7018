package pluginstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ramabana/ramabana-mcp/internal/schema"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// Description is what a plugin says about itself when launched.
type Description struct {
	// Name is the plugin's own name; it is installed under it.
	Name    string
	Version string
	// Protocol is the app protocol version negotiated in the handshake.
	Protocol int
	// Groups are the names of the tool groups it serves.
	Groups []string
	// Tools counts the tools of all its groups.
	Tools int
}

// Summarize is what Install records of a plugin's description d, served
// over app protocol version protocol.
func Summarize(d *sdk.Description, protocol int) *Description {
	out := &Description{Name: d.Name, Version: d.Version, Protocol: protocol}
	for _, g := range d.Groups {
		out.Groups = append(out.Groups, g.Name)
		out.Tools += len(g.Tools)
	}
	return out
}

// DescribeFunc launches binary as a ramabana plugin, describes it and stops
// it. It fails when binary is not a working ramabana plugin (no handshake,
// wrong cookie, Describe error) or describes something the host refuses
// (the server's launcher checks with sdk.Description.Validate).
type DescribeFunc func(ctx context.Context, binary string) (*Description, error)

// Install installs the plugin binary at path: it must be a regular,
// executable file, and describe must succeed on it. It is copied into the
// store as ramabana-plugin-<its Describe name> and recorded in the lock
// file. An installed plugin of the same name is replaced (the returned
// Entry's Replaced says what it was), as is a file of that name dropped in
// by hand.
//
// Nothing is written when path is not a plugin. The copy and the lock file
// are each replaced atomically, under the store's exclusive flock; describe
// runs before the flock is taken, and the copy is refused if path changed
// since it was described.
func (s *Store) Install(ctx context.Context, path string, describe DescribeFunc) (Entry, error) {
	src, err := filepath.Abs(path)
	if err != nil {
		return Entry{}, fmt.Errorf("install %s: %w", path, err)
	}
	fi, err := os.Stat(src)
	if err != nil {
		return Entry{}, fmt.Errorf("install: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return Entry{}, fmt.Errorf("install %s: not a regular file", path)
	}
	if fi.Mode().Perm()&0o111 == 0 {
		return Entry{}, fmt.Errorf("install %s: not executable (mode %v); a plugin is an executable binary", path, fi.Mode().Perm())
	}
	sum, err := FileSHA256(src)
	if err != nil {
		return Entry{}, fmt.Errorf("install: %w", err)
	}
	desc, err := describe(ctx, src)
	if err != nil {
		if ctx.Err() != nil {
			return Entry{}, fmt.Errorf("install %s: %w", path, ctx.Err())
		}
		return Entry{}, fmt.Errorf("%s is not a ramabana plugin: %w", path, err)
	}
	if !schema.ValidName(desc.Name) { // the describer validated it; the file name must be safe regardless
		return Entry{}, fmt.Errorf("%s is not a usable ramabana plugin: its name %q is not lower-case letters, digits and '-'", path, desc.Name)
	}

	unlock, err := s.lockExclusive()
	if err != nil {
		return Entry{}, err
	}
	defer unlock()
	lock, err := s.readLock()
	if err != nil {
		return Entry{}, err
	}
	dst := s.Path(desc.Name)
	if err := copyIn(src, dst, sum); err != nil {
		return Entry{}, fmt.Errorf("install %s as %s: %w", path, dst, err)
	}
	e := Entry{
		Name:        desc.Name,
		File:        FilePrefix + desc.Name,
		Version:     desc.Version,
		Protocol:    desc.Protocol,
		SHA256:      sum,
		InstalledAt: time.Now().UTC().Truncate(time.Second),
		Source:      src,
	}
	if old, ok := lock.Plugins[desc.Name]; ok {
		if src == dst {
			e.Source = old.Source // reinstalled in place: keep where it came from
		}
		e.Replaced = &old
	}
	lock.Plugins[desc.Name] = e
	if err := s.writeLock(lock); err != nil {
		return Entry{}, err
	}
	return e, nil
}

// copyIn copies src over dst atomically, with mode 0755, and checks the
// copy hashes to sum.
func copyIn(src, dst, sum string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".install-*.tmp")
	if err != nil {
		return err
	}
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(tmp, h), in); err != nil {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sum {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("%s changed while it was being installed (sha256 %s, described %s); try again", src, got, sum)
	}
	return finishTemp(tmp, nil, 0o755, dst)
}

// FileSHA256 hashes the file at path with a fresh sha256, as lower-case hex.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
