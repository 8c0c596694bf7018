package supervise

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ramabana/ramabana-mcp/host/internal/cfgfile"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// Descriptions keeps what plugins described on disk, so that a plugin
// whose binary has not changed is listed from what it said last time and
// its process starts only at its first call.
//
// An entry is found by a key over everything that shapes a description:
// the binary (its path and Fingerprint), the host context it was described
// with (the roots, the flags, the host's version) and the environment it
// was launched with. Anything else changed is a miss: the plugin is
// launched and described again, and the entry replaced.
//
// Each entry is a file of its own, <dir>/<name>/<key>.json, so that a
// start reads only the entries it looks up, however many projects keep
// theirs, and two servers storing entries at once keep both. A plugin
// keeps at most maxEntries; storing one more removes the least recently
// stored. A file that cannot be read, or that does not decode, is a miss;
// a write goes to a temporary file renamed over the old one, so that a
// reader never sees half of it. The files are the user's, like the plugin
// dirs: whoever can write them can install a plugin too.
//
// The zero value (no Dir) keeps nothing.
type Descriptions struct {
	// Dir holds a folder per plugin; created when first written.
	Dir string
}

// DescriptionsIn are the descriptions kept in the config dir configDir, in
// its descriptions folder: where the server keeps them and `plugin
// install` records them.
func DescriptionsIn(configDir string) Descriptions {
	if configDir == "" {
		return Descriptions{}
	}
	return Descriptions{Dir: filepath.Join(configDir, "descriptions")}
}

// maxEntries bounds the descriptions kept per plugin.
const maxEntries = 8

// staleWrite is the age past which a temporary file of a store
// (cfgfile.Replace) is one its process never finished.
const staleWrite = time.Hour

// maxFile bounds a file that is read: a plugin's description with its
// schemas is tens of KB.
const maxFile = 16 << 20

// DescriptionKey is the key under which p's description is kept: over
// its binary as p's Fingerprint saw it (taken before any launch: a binary
// replaced since is not keyed with the old one's description), the host
// context p is described with and the environment it is launched with
// (in order).
func (p *Plugin) DescriptionKey() string {
	return descriptionKey(p.src, p.fingerprint, p.cfg.Host, p.cfg.Launch.Env)
}

func descriptionKey(src Source, fp Fingerprint, host sdk.Host, env []string) string {
	hostJSON, _ := json.Marshal(host) // plain fields: cannot fail
	parts := []string{"ramabana description v2", src.Name, src.Path}
	parts = append(parts, src.Args...)
	parts = append(parts, fmt.Sprint(src.Bundled, fp.size, fp.mtime.UnixNano(), fp.ino, fp.ctime), string(hostJSON))
	return hashKey(append(parts, env...))
}

// hashKey hashes parts, each prefixed with its length so that no two
// lists of parts hash the same bytes.
func hashKey(parts []string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// InstalledDescriptionKey is the key under which `plugin install` records
// what the binary at src.Path described: over the plugin's name, the
// binary's Fingerprint as it is now and, of host, what decides which tools
// a plugin may offer and how (the permissions and the host's version), but
// neither the roots, the config dir nor the environment, which install
// cannot know: they are the server's.
//
// A server looks it up when nothing is kept under the plugin's own
// DescriptionKey, and takes what it finds as a presumption only, as it
// takes every kept description: the plugin's process, started at its first
// call, describes itself, its description stands (Plugin.Presume) and is
// kept under the DescriptionKey.
func InstalledDescriptionKey(src Source, host sdk.Host) string {
	return installedKey(src, FingerprintOf(src), host)
}

// InstalledDescriptionKey is the key under which `plugin install` would
// have recorded p's binary's description for p's host context.
func (p *Plugin) InstalledDescriptionKey() string {
	return installedKey(p.src, p.fingerprint, p.cfg.Host)
}

func installedKey(src Source, fp Fingerprint, host sdk.Host) string {
	return hashKey([]string{
		"ramabana installed description v1", src.Name,
		fmt.Sprint(fp.size, fp.mtime.UnixNano(), fp.ino, fp.ctime),
		fmt.Sprint(host.ReadOutside, host.Web, host.Write, host.Commands, host.NoSandbox), host.HostVersion,
	})
}

// folder is where name's entries are kept.
func (c Descriptions) folder(name string) string {
	return filepath.Join(c.Dir, name)
}

// entryFile is the name, in name's folder, of the entry kept under key.
func entryFile(key string) string { return key + ".json" }

// Load returns the description kept for name under key.
func (c Descriptions) Load(name, key string) (*sdk.Description, bool) {
	if c.Dir == "" || fileName(name) != nil || !isKey(key) {
		return nil, false
	}
	fh, err := os.Open(filepath.Join(c.folder(name), entryFile(key)))
	if err != nil {
		return nil, false
	}
	defer fh.Close()
	raw, err := readAtMost(fh, maxFile)
	if err != nil {
		return nil, false
	}
	d := &sdk.Description{}
	if err := json.Unmarshal(raw, d); err != nil {
		return nil, false
	}
	return unnull(d), true
}

// readAtMost reads f whole, sized by its length, refusing one of more
// than limit bytes.
func readAtMost(f *os.File, limit int64) ([]byte, error) {
	size := int64(bytes.MinRead)
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		// Room for the end to be seen without growing: ReadFrom grows
		// the buffer (a copy at twice its size) when less than MinRead
		// is free.
		size = fi.Size() + bytes.MinRead
	}
	buf := bytes.NewBuffer(make([]byte, 0, min(size, limit+bytes.MinRead)))
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > limit {
		return nil, fmt.Errorf("%s is larger than %d MB", f.Name(), limit>>20)
	}
	return buf.Bytes(), nil
}

// unnull turns the schemas a description did not have, written as null,
// back into none.
func unnull(d *sdk.Description) *sdk.Description {
	for gi := range d.Groups {
		for ti := range d.Groups[gi].Tools {
			t := &d.Groups[gi].Tools[ti]
			if string(t.InputSchema) == "null" {
				t.InputSchema = nil
			}
			if string(t.OutputSchema) == "null" {
				t.OutputSchema = nil
			}
		}
	}
	return d
}

// Store keeps d for name under key; beyond maxEntries, the entries stored
// longest ago go.
func (c Descriptions) Store(name, key string, d *sdk.Description) error {
	if c.Dir == "" || d == nil {
		return nil
	}
	if err := fileName(name); err != nil {
		return err
	}
	if !isKey(key) {
		return fmt.Errorf("description key %q is not a key", key)
	}
	raw, err := json.Marshal(d)
	if err != nil {
		return err
	}
	if err := cfgfile.Replace(c.folder(name), entryFile(key), raw); err != nil {
		return err
	}
	// What a version before one file per entry kept: not read any more.
	_ = os.Remove(filepath.Join(c.Dir, name+".json"))
	c.prune(name, key)
	return nil
}

// prune removes name's entries beyond maxEntries, those stored longest ago
// first, never key's, and the temporary files of writes that a process
// ended in the middle of (older than staleWrite).
func (c Descriptions) prune(name, key string) {
	dirents, err := os.ReadDir(c.folder(name))
	if err != nil {
		return
	}
	type kept struct {
		file   string
		stored time.Time
	}
	var entries []kept
	for _, de := range dirents {
		fi, err := de.Info()
		if err != nil {
			continue
		}
		if strings.HasPrefix(de.Name(), ".") && strings.HasSuffix(de.Name(), ".tmp") {
			if time.Since(fi.ModTime()) > staleWrite {
				_ = os.Remove(filepath.Join(c.folder(name), de.Name()))
			}
			continue
		}
		if k, ok := strings.CutSuffix(de.Name(), ".json"); ok && isKey(k) && k != key {
			entries = append(entries, kept{de.Name(), fi.ModTime()})
		}
	}
	if len(entries) < maxEntries {
		return
	}
	slices.SortFunc(entries, func(a, b kept) int {
		return cmp.Or(b.stored.Compare(a.stored), strings.Compare(a.file, b.file))
	})
	for _, e := range entries[min(len(entries), maxEntries-1):] {
		_ = os.Remove(filepath.Join(c.folder(name), e.file))
	}
}

// Forget drops what is kept for name under key.
func (c Descriptions) Forget(name, key string) error {
	if c.Dir == "" || fileName(name) != nil || !isKey(key) {
		return nil
	}
	err := os.Remove(filepath.Join(c.folder(name), entryFile(key)))
	switch {
	case err == nil:
		_ = os.Remove(c.folder(name)) // gone only when it was the last one
		return nil
	case errors.Is(err, os.ErrNotExist):
		return nil
	}
	return err
}

// isKey says key is one hashKey made (hex digits): it names a file of a
// plugin's folder and nothing else.
func isKey(key string) bool {
	if key == "" || len(key) > 128 {
		return false
	}
	for _, r := range key {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}

// fileName refuses a name that would not name a file of Dir (plugin names
// are checked where they are found; this holds if one is not).
func fileName(name string) error {
	if name == "" || name[0] == '.' || strings.ContainsAny(name, `/\`+"\x00") {
		return fmt.Errorf("plugin name %q cannot name a file", name)
	}
	return nil
}
