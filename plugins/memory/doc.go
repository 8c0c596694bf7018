// Package memory is the memory tool group: long-term notes a model stores
// with remember, finds again with recall (full-text search ranked by BM25),
// pages through with list_memories and deletes with forget.
//
// Its main is one call:
//
//	func main() { sdk.Serve(memory.New()) }
//
// Memories live in one SQLite database, <config dir>/memory/memory.db
// (directory 0700, file 0600), opened on the first call and reopened when
// the host's config dir changes. The schema is versioned and migrated in a
// write transaction when the database is opened. Two external-content FTS5
// indexes over each memory's content and tags are kept in step with the
// memories table by triggers, inside the same transactions: one of porter
// stems (a query word finds its other forms) and one of words as written
// (a query word finds the longer words it begins). recall scores a memory
// by the sum of its BM25 scores in both.
//
// Unlike a knowledge-graph file rewritten whole on every change, every
// change is one SQLite transaction in WAL mode, fsynced at commit
// (synchronous=FULL): several server processes can share the database (a
// writer takes the lock with BEGIN IMMEDIATE and others wait for it, for up
// to busy_timeout and then a few retries), and a process killed mid-write
// leaves the database as it was before that write.
//
// Each memory has a scope: the served folder (project) it was stored for,
// or "global". recall and list_memories see the served folders' memories
// and global ones unless asked for others. The content is unique per scope:
// remembering the same text again returns the existing id.
//
// Queries are never FTS5 syntax: a query is split into words, and each is
// quoted, so no input makes a syntax error. A failure the model can act on
// (no config dir, an unknown id, a bad tag or scope) is an error result
// and changes nothing.
package memory
