// Package pluginstore manages the user's plugin dir: the installed plugin
// binaries and the lock file that records what was installed.
//
// A store is a dir holding executables named ramabana-plugin-<name> and,
// beside them, ramabana-plugins.lock.json:
//
//	{"version": 1, "plugins": {"echo": {"file": "ramabana-plugin-echo",
//	  "version": "0.0.1", "protocol": 1, "sha256": "…",
//	  "installed_at": "2025-01-02T03:04:05Z", "source": "/home/me/bin/echo"}}}
//
// Install describes a candidate binary (it must really be a ramabana plugin),
// copies it in under the plugin's own name and records it; Remove drops an
// entry and its binary; Verify compares every binary with its entry. Every
// write is atomic (a temp file in the dir, fsync, rename), and every change
// holds an exclusive flock on <dir>/.lock, so concurrent installs from
// several processes do not lose entries. Readers (Lock, Verify, Check) take
// the same lock shared, so they never see a binary and an entry from two
// different installs.
//
// At launch the host calls Check on a binary before starting it: a binary
// with a lock entry must still hash to the recorded sha256, otherwise
// Check returns an error wrapping ErrHashMismatch. A ramabana-plugin-*
// file with no entry (dropped into the dir by hand) is allowed: the lock file
// records what plugin install put there, and does not forbid anything else.
// A file watcher (hot reload) should call Check on every change before
// (re)starting a plugin; it waits out an install in progress.
//
// The hashes are sha256 computed afresh on every check, as go-plugin's
// SecureConfig does, so nothing cached can go stale. Like SecureConfig, a
// check does not stop a file being swapped between the check and the exec:
// it detects a binary modified after install, not a racing attacker with
// write access to the dir.
package pluginstore
