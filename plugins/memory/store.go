package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/ramabana/ramabana-mcp/internal/sqlitedb"
)

// store is one memory database (sqlitedb: WAL, a fsync per commit, writes
// that wait out other processes), safe for concurrent use within the
// process and across processes sharing the file. Its pages are
// memory-mapped: a search reads the index and row pages of every match, and
// runs about twice as fast so (BenchmarkRecall), at no cost in private
// memory. Memories are written a few at a time, so the fsync per commit
// costs nothing that matters.
type store struct {
	*sqlitedb.DB
	path string
}

// errNewerSchema is matched by the error of opening a database that a
// newer version of the plugin migrated.
var errNewerSchema = errors.New("memory database has a newer schema")

// openStore opens (creating if needed) the database at path, and migrates
// its schema. A new directory is made 0700 and a new file 0600; SQLite
// gives the -wal and -shm files the database file's mode.
func openStore(ctx context.Context, path string) (*store, error) {
	// A few connections: reads run beside each other and beside the one
	// writer WAL allows.
	db, err := sqlitedb.Open(path, "memory database", 4)
	if err != nil {
		return nil, err
	}
	s := &store{DB: db, path: path}
	if err := s.migrate(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

// migrate brings the schema up to date in one write transaction, so two
// processes opening a new database at once migrate it once.
func (s *store) migrate(ctx context.Context) error {
	return s.Write(ctx, func(tx *sql.Tx) error {
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
