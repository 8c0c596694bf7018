package memory

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// timeFormat is how times are stored: UTC, fixed width, so text order is
// time order.
const timeFormat = "2006-01-02T15:04:05.000Z"

// memory is one stored memory as the tools show it.
type memory struct {
	ID      int64
	Content string
	Tags    []string
	Scope   string
	Created time.Time
	Updated time.Time
	// Score is the search relevance (higher is better); recall only.
	Score float64
}

// filter selects memories by scope and tags.
type filter struct {
	// Scopes the memories must be in; nil means every scope.
	Scopes []string
	// Tags the memories must all have (normalized).
	Tags []string
}

// where returns the SQL condition on the memories table aliased m, and its
// arguments; "1" when there is no condition.
func (f filter) where() (string, []any) {
	var conds []string
	var args []any
	if f.Scopes != nil {
		conds = append(conds, "m.scope IN ("+placeholders(len(f.Scopes))+")")
		for _, s := range f.Scopes {
			args = append(args, s)
		}
	}
	if len(f.Tags) > 0 {
		conds = append(conds, "m.id IN (SELECT memory_id FROM memory_tags WHERE tag IN ("+
			placeholders(len(f.Tags))+") GROUP BY memory_id HAVING count(*) = ?)")
		for _, t := range f.Tags {
			args = append(args, t)
		}
		args = append(args, len(f.Tags))
	}
	if len(conds) == 0 {
		return "1", nil
	}
	return strings.Join(conds, " AND "), args
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// added is what add did.
type added struct {
	ID int64
	// Duplicate is set when the same content was already stored in the
	// scope; ID is then the existing memory's.
	Duplicate bool
	// NewTags are the tags a duplicate did not have yet, now added to it.
	NewTags []string
	// Tags are the memory's tags after the call.
	Tags []string
}

// add stores content (trimmed, non-empty) with normalized tags in scope,
// unless the scope already holds the same content: then the new tags are
// added to the existing memory.
func (s *store) add(ctx context.Context, content string, tags []string, scope string, now time.Time) (added, error) {
	var res added
	err := s.Write(ctx, func(tx *sql.Tx) error {
		var err error
		res, err = addTx(ctx, tx, content, tags, scope, now)
		return err
	})
	return res, err
}

// addTx is add inside the write transaction tx.
func addTx(ctx context.Context, tx *sql.Tx, content string, tags []string, scope string, now time.Time) (added, error) {
	sum := sha256.Sum256([]byte(content))
	hash := hex.EncodeToString(sum[:])
	stamp := now.UTC().Format(timeFormat)
	var id int64
	var have string
	err := tx.QueryRowContext(ctx, `SELECT id, tags FROM memories WHERE scope = ? AND content_hash = ?`, scope, hash).Scan(&id, &have)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		r, err := tx.ExecContext(ctx,
			`INSERT INTO memories(content, tags, scope, content_hash, created_at, updated_at) VALUES(?, ?, ?, ?, ?, ?)`,
			content, strings.Join(tags, " "), scope, hash, stamp, stamp)
		if err != nil {
			return added{}, fmt.Errorf("insert memory: %w", err)
		}
		if id, err = r.LastInsertId(); err != nil {
			return added{}, fmt.Errorf("insert memory: %w", err)
		}
		return added{ID: id, Tags: tags}, insertTags(ctx, tx, id, tags)
	case err != nil:
		return added{}, fmt.Errorf("look for a duplicate: %w", err)
	}
	old := strings.Fields(have)
	res := added{ID: id, Duplicate: true, Tags: old}
	for _, t := range tags {
		if !slices.Contains(old, t) {
			res.NewTags = append(res.NewTags, t)
		}
	}
	if len(res.NewTags) == 0 {
		return res, nil
	}
	res.Tags = append(slices.Clone(old), res.NewTags...)
	slices.Sort(res.Tags)
	if _, err := tx.ExecContext(ctx, `UPDATE memories SET tags = ?, updated_at = ? WHERE id = ?`,
		strings.Join(res.Tags, " "), stamp, id); err != nil {
		return added{}, fmt.Errorf("add tags: %w", err)
	}
	return res, insertTags(ctx, tx, id, res.NewTags)
}

func insertTags(ctx context.Context, tx *sql.Tx, id int64, tags []string) error {
	for _, t := range tags {
		if _, err := tx.ExecContext(ctx, `INSERT INTO memory_tags(tag, memory_id) VALUES(?, ?)`, t, id); err != nil {
			return fmt.Errorf("insert tag: %w", err)
		}
	}
	return nil
}

// missingError names the ids that no memory has.
type missingError struct{ IDs []int64 }

func (e *missingError) Error() string {
	if len(e.IDs) == 1 {
		return fmt.Sprintf("no memory has id %d", e.IDs[0])
	}
	return fmt.Sprintf("no memories have ids %s", joinIDs(e.IDs))
}

// remove deletes the memories with the given ids, all or none: if any id is
// unknown it returns a *missingError and deletes nothing. It returns the
// deleted memories in the order of ids.
func (s *store) remove(ctx context.Context, ids []int64) ([]memory, error) {
	var gone []memory
	err := s.Write(ctx, func(tx *sql.Tx) error {
		gone = nil
		args := make([]any, len(ids))
		for i, id := range ids {
			args[i] = id
		}
		found, err := queryMemories(ctx, tx, `SELECT m.id, m.content, m.tags, m.scope, m.created_at, m.updated_at, 0
			FROM memories m WHERE m.id IN (`+placeholders(len(ids))+`)`, args...)
		if err != nil {
			return err
		}
		byID := map[int64]memory{}
		for _, m := range found {
			byID[m.ID] = m
		}
		var missing []int64
		for _, id := range ids {
			m, ok := byID[id]
			if !ok {
				missing = append(missing, id)
				continue
			}
			gone = append(gone, m)
		}
		if len(missing) > 0 {
			return &missingError{IDs: missing}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM memories WHERE id IN (`+placeholders(len(ids))+`)`, args...); err != nil {
			return fmt.Errorf("delete memories: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return gone, nil
}

// Words in at least half of all memories, and in at least minCommon, are
// left out of a search that has rarer words: BM25 gives a word in half the
// documents or more no weight (FTS5 floors its IDF at 1e-6), so it cannot
// change the order of the memories the other words find; it only adds
// hundreds of matches scored zero, and most of the search's time.
const minCommon = 500

// searched is what search found.
type searched struct {
	// Found are the memories, best first.
	Found []memory
	// More is set when more memories match than were returned.
	More bool
	// Common are the words left out as too common to rank by.
	Common []string
}

// search returns up to limit memories matching any of words (see
// matchExprs) and the filter, best first. A memory's score is the sum of
// its BM25 scores in both full-text indexes.
func (s *store) search(ctx context.Context, words []string, f filter, limit int) (searched, error) {
	var res searched
	err := s.Read(ctx, func(tx *sql.Tx) error {
		var err error
		if words, res.Common, err = dropCommon(ctx, tx, words); err != nil {
			return err
		}
		stems, prefixes := matchExprs(words)
		where, args := f.where()
		// The top ids are picked first, from ids and scores alone, and only
		// their rows are read in full: sorting every match with its
		// content would cost more than the search. CROSS JOIN keeps the
		// matches as the outer loop, so memories are looked up by id.
		q := `WITH hits(id, score) AS (
				-- bm25 is negative, lower is better; tags weigh twice as
				-- much as content, as a tag is a deliberate label.
				SELECT rowid, -bm25(memories_fts, 1.0, 2.0) FROM memories_fts WHERE memories_fts MATCH ?
				UNION ALL
				SELECT rowid, -bm25(memories_words, 1.0, 2.0) FROM memories_words WHERE memories_words MATCH ?),
			top(id, score) AS (
				SELECT g.id, g.score FROM (SELECT id, sum(score) AS score FROM hits GROUP BY id) AS g
				CROSS JOIN memories m ON m.id = g.id
				WHERE ` + where + `
				ORDER BY 2 DESC, 1 DESC
				LIMIT ?)
			SELECT m.id, m.content, m.tags, m.scope, m.created_at, m.updated_at, top.score
			FROM top JOIN memories m ON m.id = top.id
			ORDER BY top.score DESC, m.id DESC`
		args = append([]any{stems, prefixes}, args...)
		args = append(args, limit+1)
		res.Found, err = queryMemories(ctx, tx, q, args...)
		return err
	})
	if err != nil {
		return searched{}, fmt.Errorf("search memories: %w", err)
	}
	if len(res.Found) > limit {
		res.Found, res.More = res.Found[:limit], true
	}
	return res, nil
}

// dropCommon splits words into those to search for and those too common
// to rank by (see minCommon); when every word is common, all are kept.
// The number of memories is estimated from above by the highest id ever
// given, so a word is never dropped that is in fewer than half.
func dropCommon(ctx context.Context, tx *sql.Tx, words []string) (keep, common []string, err error) {
	var n int
	err = tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM sqlite_sequence WHERE name = 'memories'`).Scan(&n)
	if err != nil {
		return nil, nil, fmt.Errorf("count memories: %w", err)
	}
	if n < 2*minCommon || len(words) < 2 {
		return words, nil, nil
	}
	args := make([]any, len(words))
	for i, w := range words {
		args[i] = w
	}
	// memories_words_vocab counts, for each word as written, the memories
	// holding it; the stemmed and prefix forms of the word are in at least
	// as many.
	rows, err := tx.QueryContext(ctx, `SELECT term FROM memories_words_vocab
		WHERE term IN (`+placeholders(len(words))+`) AND doc >= ? AND doc * 2 >= ?`, append(args, minCommon, n)...)
	if err != nil {
		return nil, nil, fmt.Errorf("count words: %w", err)
	}
	defer rows.Close()
	isCommon := map[string]bool{}
	for rows.Next() {
		var term string
		if err := rows.Scan(&term); err != nil {
			return nil, nil, fmt.Errorf("count words: %w", err)
		}
		isCommon[term] = true
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("count words: %w", err)
	}
	for _, w := range words {
		if isCommon[w] {
			common = append(common, w)
		} else {
			keep = append(keep, w)
		}
	}
	if len(keep) == 0 {
		return words, nil, nil
	}
	return keep, common, nil
}

// list returns the page of memories matching the filter, most recent
// first, and how many match in all.
func (s *store) list(ctx context.Context, f filter, limit, offset int) ([]memory, int, error) {
	where, args := f.where()
	var out []memory
	var total int
	err := s.Read(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM memories m WHERE `+where, args...).Scan(&total); err != nil {
			return err
		}
		var err error
		// Ids only grow (AUTOINCREMENT), and a memory's id is taken when it
		// is committed, so id order is the order memories were made in.
		out, err = queryMemories(ctx, tx, `SELECT m.id, m.content, m.tags, m.scope, m.created_at, m.updated_at, 0
			FROM memories m WHERE `+where+` ORDER BY m.id DESC LIMIT ? OFFSET ?`,
			append(args, limit, offset)...)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list memories: %w", err)
	}
	return out, total, nil
}

// queryMemories scans rows of (id, content, tags, scope, created_at,
// updated_at, score).
func queryMemories(ctx context.Context, tx *sql.Tx, q string, args ...any) ([]memory, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []memory
	for rows.Next() {
		var m memory
		var tags, created, updated string
		if err := rows.Scan(&m.ID, &m.Content, &tags, &m.Scope, &created, &updated, &m.Score); err != nil {
			return nil, err
		}
		m.Tags = strings.Fields(tags)
		m.Created, _ = time.Parse(timeFormat, created)
		m.Updated, _ = time.Parse(timeFormat, updated)
		out = append(out, m)
	}
	return out, rows.Err()
}

func joinIDs(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	return strings.Join(parts, ", ")
}
