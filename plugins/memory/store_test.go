package memory

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/internal/sqlitedb"
)

// The test binary doubles as a helper process that opens a database
// through the store, so tests can run several processes on one file.
const (
	helperEnv = "MEMORY_TEST_HELPER" // "insert" or "crash"
	helperDB  = "MEMORY_TEST_DB"
	helperN   = "MEMORY_TEST_N"
	helperTag = "MEMORY_TEST_TAG"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		if err := helper(mode); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// helper is the helper process's main. It opens the store, prints "ready",
// and waits for a line on stdin; then, for "insert", it adds N memories
// tagged TAG, one transaction each, and prints "done"; for "crash", it
// adds N memories in one transaction, prints "inside" before committing,
// and waits to be killed.
func helper(mode string) error {
	ctx := context.Background()
	s, err := openStore(ctx, os.Getenv(helperDB))
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(os.Getenv(helperN))
	if err != nil {
		return err
	}
	tag := os.Getenv(helperTag)
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		return err
	}
	switch mode {
	case "insert":
		for i := range n {
			if _, err := s.add(ctx, fmt.Sprintf("%s row %d", tag, i), []string{tag}, scopeGlobal, time.Now()); err != nil {
				return err
			}
			// A pause, as between a client's calls, gives the other
			// process a chance at the lock between transactions, so the
			// writes interleave instead of running one process after the
			// other.
			time.Sleep(time.Millisecond)
		}
		fmt.Println("done")
		return s.Close()
	case "crash":
		return s.Write(ctx, func(tx *sql.Tx) error {
			// One long word: pages fill fast and the indexes stay small.
			filler := strings.Repeat("x", 4000)
			for i := range n {
				if _, err := addTx(ctx, tx, fmt.Sprintf("%s row %d %s", tag, i, filler), []string{tag}, scopeGlobal, time.Now()); err != nil {
					return err
				}
			}
			fmt.Println("inside")
			select {}
		})
	}
	return fmt.Errorf("unknown mode %q", mode)
}

// child is a running helper process.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	// lines carries its stdout lines, and is closed at EOF.
	lines chan string
	// exited is closed when it has exited, with err set.
	exited chan struct{}
	err    error
}

// startHelper starts a helper process on db; it is killed at cleanup if it
// is still running.
func startHelper(t *testing.T, mode, db string, n int, tag string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, helperDB+"="+db, helperN+"="+strconv.Itoa(n), helperTag+"="+tag)
	cmd.Stderr = &testWriter{t: t, prefix: mode + " " + tag + ": "}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stdin: stdin, lines: make(chan string, 16), exited: make(chan struct{})}
	go func() {
		// Read all output before Wait, which closes the pipe.
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
		c.err = cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-c.exited
	})
	return c
}

// expect waits for the next line of c to be want.
func (c *child) expect(t *testing.T, want string) {
	t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			<-c.exited
			t.Fatalf("helper exited (%v) before saying %q", c.err, want)
		}
		if l != want {
			t.Fatalf("helper said %q, want %q", l, want)
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("helper did not say %q within two minutes", want)
	}
}

// wait waits for c to exit.
func (c *child) wait() error {
	<-c.exited
	return c.err
}

// testWriter logs a child's stderr.
type testWriter struct {
	t      *testing.T
	prefix string
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Log(w.prefix + strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// checkConsistent fails unless the database passes SQLite's integrity check
// and both full-text indexes match the memories table.
func checkConsistent(t *testing.T, s *store) {
	t.Helper()
	var res string
	if err := s.DB.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
		t.Errorf("integrity_check: %q, %v", res, err)
	}
	for _, fts := range []string{"memories_fts", "memories_words"} {
		// rank 1: also compare the index with the content table.
		if _, err := s.DB.Exec(fmt.Sprintf(`INSERT INTO %s(%s, rank) VALUES('integrity-check', 1)`, fts, fts)); err != nil {
			t.Errorf("%s integrity-check: %v", fts, err)
		}
	}
	var orphans int
	if err := s.DB.QueryRow(`SELECT count(*) FROM memory_tags WHERE memory_id NOT IN (SELECT id FROM memories)`).Scan(&orphans); err != nil || orphans != 0 {
		t.Errorf("%d tags of missing memories (%v)", orphans, err)
	}
}

func count(t *testing.T, s *store, where string, args ...any) int {
	t.Helper()
	var n int
	if err := s.DB.QueryRow(`SELECT count(*) FROM memories WHERE `+where, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func open(t *testing.T, path string) *store {
	t.Helper()
	s, err := openStore(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestConcurrentProcesses has two processes insert into one database at
// the same time, each memory in its own transaction: every write of both
// must succeed and be indexed.
func TestConcurrentProcesses(t *testing.T) {
	const n = 150
	db := dbPath(t.TempDir())
	a := startHelper(t, "insert", db, n, "alpha")
	b := startHelper(t, "insert", db, n, "bravo")
	a.expect(t, "ready")
	b.expect(t, "ready")
	// Both have the database open; start them together.
	for _, c := range []*child{a, b} {
		if _, err := io.WriteString(c.stdin, "go\n"); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []*child{a, b} {
		c.expect(t, "done")
		if err := c.wait(); err != nil {
			t.Errorf("helper: %v", err)
		}
	}
	s := open(t, db)
	got := map[string]int{
		"all":   count(t, s, "1"),
		"alpha": count(t, s, "id IN (SELECT memory_id FROM memory_tags WHERE tag = 'alpha')"),
		"bravo": count(t, s, "id IN (SELECT memory_id FROM memory_tags WHERE tag = 'bravo')"),
	}
	if diff := cmp.Diff(map[string]int{"all": 2 * n, "alpha": n, "bravo": n}, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	checkConsistent(t, s)
	for _, tag := range []string{"alpha", "bravo"} {
		res, err := s.search(context.Background(), []string{tag}, filter{}, 2*n)
		if err != nil || len(res.Found) != n || res.More {
			t.Errorf("search %s: %d found, more %t, %v; want %d", tag, len(res.Found), res.More, err, n)
		}
	}
	// Whether the two actually interleaved depends on scheduling; say so.
	var switches int
	if err := s.DB.QueryRow(`SELECT count(*) FROM memories a JOIN memories b ON b.id = a.id + 1 WHERE a.tags != b.tags`).Scan(&switches); err == nil {
		t.Logf("writers alternated %d times", switches)
	}
}

// TestCrashMidWrite kills a process in the middle of a large write
// transaction: the database must hold exactly what it held before, pass
// its integrity checks, and take new writes.
func TestCrashMidWrite(t *testing.T) {
	db := dbPath(t.TempDir())
	s := open(t, db)
	for i := range 3 {
		if _, err := s.add(context.Background(), fmt.Sprintf("before the crash %d", i), []string{"kept"}, scopeGlobal, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	walBefore := fileSize(t, db+"-wal")

	c := startHelper(t, "crash", db, 1000, "doomed")
	c.expect(t, "ready")
	if _, err := io.WriteString(c.stdin, "go\n"); err != nil {
		t.Fatal(err)
	}
	c.expect(t, "inside")
	// The transaction is bigger than SQLite's page cache, so part of it is
	// in the WAL already, uncommitted.
	walDuring := fileSize(t, db+"-wal")
	t.Logf("WAL %d bytes before, %d with the transaction open", walBefore, walDuring)
	if walDuring <= walBefore {
		t.Errorf("the open transaction wrote nothing to the WAL (%d bytes, %d before); the test crashes nothing", walDuring, walBefore)
	}
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := c.wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("helper ended with %v, want killed", err)
	}

	for name, st := range map[string]*store{"open before": s, "opened after": open(t, db)} {
		t.Run(name, func(t *testing.T) {
			if got := count(t, st, "1"); got != 3 {
				t.Errorf("%d memories after the crash, want the 3 from before", got)
			}
			checkConsistent(t, st)
		})
	}
	// The killed writer's lock is gone: a new write goes through at once.
	ctx, cancel := context.WithTimeout(context.Background(), sqlitedb.BusyTimeout)
	defer cancel()
	if _, err := s.add(ctx, "after the crash", nil, scopeGlobal, time.Now()); err != nil {
		t.Fatalf("write after the crash: %v", err)
	}
	checkConsistent(t, s)
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func TestMigrate(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "sub", "memory.db")
	s := open(t, db)
	version := func(st *store) int {
		var v int
		if err := st.DB.QueryRow(`SELECT version FROM schema_version`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if got := version(s); got != len(migrations) {
		t.Errorf("new database at version %d, want %d", got, len(migrations))
	}
	// Opening again migrates nothing and keeps one version row.
	again := open(t, db)
	var rows int
	if err := again.DB.QueryRow(`SELECT count(*) FROM schema_version`).Scan(&rows); err != nil || rows != 1 {
		t.Errorf("%d version rows (%v)", rows, err)
	}
	// Every pragma the store relies on is in effect on its connections.
	pragmas := map[string]string{}
	for _, p := range []string{"journal_mode", "synchronous", "busy_timeout", "foreign_keys"} {
		var v string
		if err := again.DB.QueryRow("PRAGMA " + p).Scan(&v); err != nil {
			t.Fatal(err)
		}
		pragmas[p] = v
	}
	want := map[string]string{"journal_mode": "wal", "synchronous": "2", "busy_timeout": "5000", "foreign_keys": "1"}
	if diff := cmp.Diff(want, pragmas); diff != "" {
		t.Errorf("pragmas (-want +got):\n%s", diff)
	}

	// A database from a newer plugin is refused, not downgraded.
	if _, err := s.DB.Exec(`UPDATE schema_version SET version = ?`, len(migrations)+1); err != nil {
		t.Fatal(err)
	}
	if _, err := openStore(context.Background(), db); !errors.Is(err, errNewerSchema) {
		t.Errorf("open newer schema: %v, want errNewerSchema", err)
	}
}

func TestDuplicateRace(t *testing.T) {
	t.Parallel()
	s := open(t, dbPath(t.TempDir()))
	// Many goroutines store the same content: one memory results.
	const n = 8
	ids := make(chan int64, n)
	for range n {
		go func() {
			r, err := s.add(context.Background(), "same", nil, scopeGlobal, time.Now())
			if err != nil {
				t.Error(err)
			}
			ids <- r.ID
		}()
	}
	first := <-ids
	for range n - 1 {
		if id := <-ids; id != first {
			t.Errorf("ids %d and %d for the same content", first, id)
		}
	}
	if got := count(t, s, "1"); got != 1 {
		t.Errorf("%d memories, want 1", got)
	}
}

// TestSearchCommonWords: in a large store, a word in most memories is left
// out of a search that has rarer words, and kept when it is alone.
func TestSearchCommonWords(t *testing.T) {
	t.Parallel()
	s := open(t, dbPath(t.TempDir()))
	const n = 2 * minCommon
	err := s.Write(context.Background(), func(tx *sql.Tx) error {
		for i := range n {
			content := fmt.Sprintf("ordinary filler %d", i)
			if i%100 == 0 {
				content += " zebra"
			}
			if i%200 == 0 {
				content += " zebra zebra"
			}
			if _, err := addTx(context.Background(), tx, content, nil, scopeGlobal, time.Now()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.search(context.Background(), []string{"ordinary", "zebra"}, filter{}, 100)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ordinary"}, res.Common); diff != "" {
		t.Errorf("common words (-want +got):\n%s", diff)
	}
	if len(res.Found) != n/100 || res.More {
		t.Errorf("found %d (more %t), want the %d with zebra", len(res.Found), res.More, n/100)
	}
	// The memories with zebra three times rank above those with it once.
	for i, m := range res.Found {
		if thrice := strings.Count(m.Content, "zebra") == 3; thrice != (i < n/200) {
			t.Errorf("rank %d: %q", i, m.Content)
		}
	}
	res, err = s.search(context.Background(), []string{"ordinary"}, filter{}, 10)
	if err != nil || len(res.Found) != 10 || !res.More || res.Common != nil {
		t.Errorf("a common word alone: %d found, more %t, common %v, %v", len(res.Found), res.More, res.Common, err)
	}
}

// TestWriteLocksAtBegin: a write transaction holds the write lock from its
// start, before it writes anything, so no two writers ever both hold read
// locks they need to upgrade (the deadlock BEGIN DEFERRED allows).
func TestWriteLocksAtBegin(t *testing.T) {
	t.Parallel()
	path := dbPath(t.TempDir())
	s := open(t, path)
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	err = s.Write(context.Background(), func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM memories`).Scan(&n); err != nil {
			return err
		}
		_, err := other.Exec(`BEGIN IMMEDIATE; ROLLBACK`)
		if !sqlitedb.IsBusy(err) {
			t.Errorf("another connection took the write lock during a write transaction (%v)", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Exec(`BEGIN IMMEDIATE; ROLLBACK`); err != nil {
		t.Errorf("write lock not released after the transaction: %v", err)
	}
}
