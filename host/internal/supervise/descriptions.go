package supervise

import (
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
// Each plugin has one file, <dir>/<name>.json, of at most maxEntries
// entries (the newest first), so that projects served in turn keep
// theirs. A file that cannot be read, or that does not decode, is a miss;
// a write goes to a temporary file renamed over the old one, so that a
// reader never sees half of it. The files are the user's, like the
// plugin dirs: whoever can write them can install a plugin too.
//
// The zero value (no Dir) keeps nothing.
type Descriptions struct {
	// Dir holds the files; created when first written.
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

// maxFile bounds a file that is read: a plugin's description with its
// schemas is tens of KB.
const maxFile = 16 << 20

// descriptionsFile is the format of a plugin's file.
type descriptionsFile struct {
	Entries []descriptionEntry `json:"entries"`
}

// descriptionEntry is one kept description. Its description is decoded
// only when its key is the one looked up: a file holds up to maxEntries,
// and decoding them all was most of the time a start spent on them.
type descriptionEntry struct {
	Key         string          `json:"key"`
	Stored      time.Time       `json:"stored"`
	Description json.RawMessage `json:"description"`
}

// absent says an entry holds no description.
func (e descriptionEntry) absent() bool {
	return len(e.Description) == 0 || string(e.Description) == "null"
}

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

func (c Descriptions) file(name string) string {
	return filepath.Join(c.Dir, name+".json")
}

// Load returns the description kept for name under key.
func (c Descriptions) Load(name, key string) (*sdk.Description, bool) {
	if c.Dir == "" {
		return nil, false
	}
	f, err := c.read(name)
	if err != nil {
		return nil, false
	}
	for _, e := range f.Entries {
		if e.Key == key {
			d := &sdk.Description{}
			if err := json.Unmarshal(e.Description, d); err != nil {
				return nil, false
			}
			return unnull(d), true
		}
	}
	return nil, false
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

// Store keeps d for name under key, in front of the others; the oldest
// beyond maxEntries go.
func (c Descriptions) Store(name, key string, d *sdk.Description) error {
	if c.Dir == "" || d == nil {
		return nil
	}
	if err := fileName(name); err != nil {
		return err
	}
	f, err := c.read(name)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		f = &descriptionsFile{} // unreadable: written anew
	}
	raw, err := json.Marshal(d)
	if err != nil {
		return err
	}
	entries := []descriptionEntry{{Key: key, Stored: time.Now().UTC(), Description: raw}}
	for _, e := range f.Entries {
		if e.Key != key && len(entries) < maxEntries {
			entries = append(entries, e)
		}
	}
	return c.write(name, &descriptionsFile{Entries: entries})
}

// write replaces name's file with f: a temporary file renamed over it.
func (c Descriptions) write(name string, f *descriptionsFile) error {
	raw, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return cfgfile.Replace(c.Dir, name+".json", raw)
}

// Forget drops what is kept for name under key.
func (c Descriptions) Forget(name, key string) error {
	if c.Dir == "" {
		return nil
	}
	f, err := c.read(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	kept := slices.DeleteFunc(f.Entries, func(e descriptionEntry) bool { return e.Key == key })
	if len(kept) == len(f.Entries) {
		return nil
	}
	if len(kept) == 0 {
		return os.Remove(c.file(name))
	}
	return c.write(name, &descriptionsFile{Entries: kept})
}

// read reads name's file; a missing one is os.ErrNotExist with an empty
// file.
func (c Descriptions) read(name string) (*descriptionsFile, error) {
	f := &descriptionsFile{}
	if err := fileName(name); err != nil {
		return f, err
	}
	fh, err := os.Open(c.file(name))
	if err != nil {
		return f, err
	}
	defer fh.Close()
	raw, err := io.ReadAll(io.LimitReader(fh, maxFile+1))
	if err != nil {
		return f, err
	}
	if len(raw) > maxFile {
		return f, fmt.Errorf("%s is larger than %d MB", c.file(name), maxFile>>20)
	}
	if err := json.Unmarshal(raw, f); err != nil {
		return &descriptionsFile{}, err
	}
	f.Entries = slices.DeleteFunc(f.Entries, descriptionEntry.absent)
	return f, nil
}

// fileName refuses a name that would not name a file of Dir (plugin names
// are checked where they are found; this holds if one is not).
func fileName(name string) error {
	if name == "" || name[0] == '.' || strings.ContainsAny(name, `/\`+"\x00") {
		return fmt.Errorf("plugin name %q cannot name a file", name)
	}
	return nil
}
