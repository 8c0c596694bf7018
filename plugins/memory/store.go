package memory

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

// busyTimeout is how long SQLite itself waits for another connection's
// lock before a statement fails with SQLITE_BUSY.
const busyTimeout = 5 * time.Second

// mmapSize bounds how much of the database file is memory-mapped.
const mmapSize = 256 << 20

// busyRetries bounds the transactions retried after SQLITE_BUSY, which
// still happens past busy_timeout when another process holds the write lock
// for longer, and in the few cases where SQLite does not call the busy
// handler at all (a WAL being recovered by another connection).
const busyRetries = 4

// store is one memory database. It is safe for concurrent use, within the
// process and across processes sharing the file.
//
// Connections are opened with:
//   - journal_mode=WAL: readers never block the writer nor the writer
//     readers, and a write is one append to the WAL, so a crash anywhere
//     leaves either the whole transaction or none of it;
//   - synchronous=FULL: the WAL is fsynced at every commit, so a memory
//     whose id was returned survives a power cut too (NORMAL would only
//     sync at checkpoints and could lose the last commits); memories are
//     written a few at a time, so the fsync per commit costs nothing that
//     matters;
//   - busy_timeout=5000 and foreign_keys=on;
//   - mmap_size: pages are read from a shared mapping of the file instead
//     of copied into each connection's private page cache: a search reads
//     the index and row pages of every match, and runs about twice as
//     fast so (BenchmarkRecall), at no cost in private memory;
//   - _txlock=immediate: every write transaction starts with BEGIN
//     IMMEDIATE, taking the write lock up front, so two writers never
//     deadlock upgrading read locks to write locks (SQLITE_BUSY_SNAPSHOT).
type store struct {
	db   *sql.DB
	path string

	// writeMu serializes this process's writers, so they queue here instead
	// of spinning in SQLite's busy handler; other processes are kept out by
	// SQLite's own lock.
	writeMu sync.Mutex
}

// errNewerSchema is matched by the error of opening a database that a
// newer version of the plugin migrated.
var errNewerSchema = errors.New("memory database has a newer schema")

// openStore opens (creating if needed) the database at path, and migrates
// its schema. A new directory is made 0700 and a new file 0600; SQLite
// gives the -wal and -shm files the database file's mode.
func openStore(ctx context.Context, path string) (*store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create memory directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create memory database: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("create memory database: %w", err)
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", fmt.Sprintf("mmap_size(%d)", mmapSize))
	q.Set("_txlock", "immediate")
	dsn := (&url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open memory database: %w", err)
	}
	// A few connections: reads run beside each other and beside the one
	// writer WAL allows.
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(2)
	s := &store{db: db, path: path}
	if err := s.migrate(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the database; queries in flight finish first.
func (s *store) Close() error { return s.db.Close() }

// migrate brings the schema up to date in one write transaction, so two
// processes opening a new database at once migrate it once.
func (s *store) migrate(ctx context.Context) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version(version INTEGER NOT NULL)`); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		var v int
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_version`).Scan(&v); err != nil {
			return fmt.Errorf("migrate: read schema version: %w", err)
		}
		if v > len(migrations) {
			return fmt.Errorf("%w (version %d; this plugin knows up to %d): upgrade ramabana-mcp", errNewerSchema, v, len(migrations))
		}
		if v == len(migrations) {
			return nil
		}
		for i := v; i < len(migrations); i++ {
			if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
				return fmt.Errorf("migrate to version %d: %w", i+1, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM schema_version`); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version(version) VALUES(?)`, len(migrations)); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		return nil
	})
}

// write runs fn in a write transaction (BEGIN IMMEDIATE) and commits it, or
// rolls it back if fn fails. A transaction that fails with SQLITE_BUSY is
// retried from the start, with backoff, so fn must have no effect outside
// the transaction.
func (s *store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	backoff := 50 * time.Millisecond
	for attempt := 0; ; attempt++ {
		err := s.writeOnce(ctx, fn)
		if err == nil || !isBusy(err) || attempt == busyRetries {
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

func (s *store) writeOnce(ctx context.Context, fn func(tx *sql.Tx) error) (err error) {
	tx, err := s.db.BeginTx(ctx, nil)
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

// read runs fn in a read transaction, so its queries see one snapshot.
func (s *store) read(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("begin read: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	return fn(tx)
}

// isBusy reports whether err is SQLITE_BUSY or SQLITE_LOCKED, with any
// extended code.
func isBusy(err error) bool {
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
