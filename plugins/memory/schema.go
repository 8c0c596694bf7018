package memory

// migrations are the schema changes in order; migrations[i] takes the
// database from version i to i+1. Append, never edit: a database records
// the version it reached in schema_version.
var migrations = []string{
	// 1: memories, their tags, and the full-text index.
	//
	// AUTOINCREMENT so an id is never reused: a model holding the id of a
	// forgotten memory must not forget a newer one by mistake. content_hash
	// (SHA-256 of the content) makes "same content in the same scope" a
	// unique key without indexing the content itself. Times are UTC,
	// "2006-01-02T15:04:05.000Z", so they sort as text.
	//
	// memory_tags is the tag filter's index; memories.tags (the same tags,
	// space-separated) is what the full-text index sees, so a query word
	// matches tags too.
	//
	// Two external-content FTS5 tables index content and tags, kept in step
	// with memories by triggers, in the same transaction as every change:
	// memories_fts holds porter stems, for whole words in any form
	// ("tests" finds "testing"); memories_words holds the words as written,
	// for prefixes. A prefix cannot be searched among stems: porter turns
	// the query "deploy" into "deploi", which no stem of "deployment"
	// ("deploy") starts with.
	`
CREATE TABLE memories(
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	content TEXT NOT NULL,
	tags TEXT NOT NULL DEFAULT '',
	scope TEXT NOT NULL,
	content_hash TEXT NOT NULL,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX memories_scope_hash ON memories(scope, content_hash);
CREATE INDEX memories_scope_id ON memories(scope, id);

CREATE TABLE memory_tags(
	tag TEXT NOT NULL,
	memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
	PRIMARY KEY(tag, memory_id)
) WITHOUT ROWID;
CREATE INDEX memory_tags_memory ON memory_tags(memory_id);

CREATE VIRTUAL TABLE memories_fts USING fts5(
	content, tags,
	content='memories', content_rowid='id',
	tokenize='porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE memories_words USING fts5(
	content, tags,
	content='memories', content_rowid='id',
	tokenize='unicode61 remove_diacritics 2'
);
-- How many memories hold each word, for leaving out words too common
-- to rank by.
CREATE VIRTUAL TABLE memories_words_vocab USING fts5vocab(memories_words, row);
CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
	INSERT INTO memories_fts(rowid, content, tags) VALUES(new.id, new.content, new.tags);
	INSERT INTO memories_words(rowid, content, tags) VALUES(new.id, new.content, new.tags);
END;
CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
	INSERT INTO memories_fts(memories_fts, rowid, content, tags) VALUES('delete', old.id, old.content, old.tags);
	INSERT INTO memories_words(memories_words, rowid, content, tags) VALUES('delete', old.id, old.content, old.tags);
END;
CREATE TRIGGER memories_au AFTER UPDATE OF content, tags ON memories BEGIN
	INSERT INTO memories_fts(memories_fts, rowid, content, tags) VALUES('delete', old.id, old.content, old.tags);
	INSERT INTO memories_words(memories_words, rowid, content, tags) VALUES('delete', old.id, old.content, old.tags);
	INSERT INTO memories_fts(rowid, content, tags) VALUES(new.id, new.content, new.tags);
	INSERT INTO memories_words(rowid, content, tags) VALUES(new.id, new.content, new.tags);
END;
`,
}
