// Package sqlitedb opens the SQLite databases the server keeps on disk (the
// memory plugin's store, the host's vault) the one way they are all
// opened, and runs transactions on them that survive other processes
// holding the same file.
//
// Connections are opened with:
//   - journal_mode=WAL: readers never block the writer nor the writer
//     readers, and a write is one append to the WAL, so a crash anywhere
//     leaves either the whole transaction or none of it;
//   - synchronous=FULL: the WAL is fsynced at every commit, so a row whose
//     write returned survives a power cut too (NORMAL would only sync at
//     checkpoints and could lose the last commits);
//   - busy_timeout (BusyTimeout) and foreign_keys=on;
//   - mmap_size (MmapSize): pages are read from a shared mapping of the
//     file instead of copied into each connection's private page cache;
//   - _txlock=immediate: every write transaction starts with BEGIN
//     IMMEDIATE, taking the write lock up front, so two writers never
//     deadlock upgrading read locks to write locks (SQLITE_BUSY_SNAPSHOT).
package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// BusyTimeout is how long SQLite itself waits for another connection's
// lock before a statement fails with SQLITE_BUSY.
const BusyTimeout = 5 * time.Second

// MmapSize bounds how much of a database file is memory-mapped.
const MmapSize = 256 << 20

// busyRetries bounds the transactions retried after SQLITE_BUSY, which
// still happens past BusyTimeout when another process holds the write lock
// for longer, and in the few cases where SQLite does not call the busy
// handler at all (a WAL being recovered by another connection).
const busyRetries = 4

// DB is one database file. It is safe for concurrent use, within the
// process and across processes sharing the file.
type DB struct {
	*sql.DB

	// writeMu serializes this process's writers, so they queue here instead
	// of spinning in SQLite's busy handler; other processes are kept out by
	// SQLite's own lock.
	writeMu sync.Mutex
}

// Open opens (creating if needed) the database at path with the settings
// in the package comment, and at most maxConns connections. A new
// directory is made 0700 and a new file 0600; SQLite gives the -wal and
// -shm files the database file's mode. what names the database in errors
// ("memory database").
func Open(path, what string, maxConns int) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create %s directory: %w", what, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", what, err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("create %s: %w", what, err)
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", fmt.Sprintf("mmap_size(%d)", MmapSize))
	q.Set("_txlock", "immediate")
	dsn := (&url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", what, err)
	}
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(min(maxConns, 2))
	return &DB{DB: db}, nil
}

// Write runs fn in a write transaction (BEGIN IMMEDIATE) and commits it, or
// rolls it back if fn fails. A transaction that fails with SQLITE_BUSY is
// retried from the start, with backoff, so fn must have no effect outside
// the transaction.
func (db *DB) Write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	db.writeMu.Lock()
	defer db.writeMu.Unlock()
	backoff := 50 * time.Millisecond
	for attempt := 0; ; attempt++ {
		err := db.writeOnce(ctx, fn)
		if err == nil || !IsBusy(err) || attempt == busyRetries {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff *= 2
	}
}

func (db *DB) writeOnce(ctx context.Context, fn func(tx *sql.Tx) error) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin write: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// Read runs fn in a read transaction, so its queries see one snapshot.
func (db *DB) Read(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("begin read: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	return fn(tx)
}

// IsBusy reports whether err is SQLITE_BUSY or SQLITE_LOCKED, with any
// extended code.
func IsBusy(err error) bool {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return true
	}
	return false
}
