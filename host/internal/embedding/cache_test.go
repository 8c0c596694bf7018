package embedding_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ramabana/ramabana-mcp/host/internal/embedding"
)

func TestCachePath(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"text-embedding-3-small":  "text-embedding-3-small.vec",
		"nomic-embed-text:latest": "nomic-embed-text_latest-",
		"BAAI/bge-small-en-v1.5":  "BAAI_bge-small-en-v1.5-",
		"../../etc/passwd":        "_._.._etc_passwd-",
		"":                        "-",
	}
	seen := map[string]bool{}
	for model, want := range tests {
		got := embedding.CachePath("/cfg", model)
		dir, base := filepath.Split(got)
		if dir != "/cfg/embeddings/" || !strings.HasPrefix(base, want) || !strings.HasSuffix(base, ".vec") {
			t.Errorf("CachePath(%q) = %q, want /cfg/embeddings/%s...", model, got, want)
		}
		if seen[got] {
			t.Errorf("two models share %q", got)
		}
		seen[got] = true
	}
	if embedding.CachePath("/cfg", "a/b") == embedding.CachePath("/cfg", "a_b") {
		t.Error("a/b and a_b share a file")
	}
}

func TestCacheSaveAndLoad(t *testing.T) {
	t.Parallel()
	path := embedding.CachePath(t.TempDir(), "m")
	c := embedding.NewCache(path)
	if err := c.Load(); err != nil || c.Len() != 0 {
		t.Fatalf("no file: %v, %d entries", err, c.Len())
	}
	a, b, gone := embedding.KeyOf("m", "a"), embedding.KeyOf("m", "b"), embedding.KeyOf("m", "gone")
	c.Put(a, []float32{1, 2, 3})
	c.Put(b, []float32{-0.5, 0, 1e-30})
	c.Put(gone, []float32{9, 9, 9})
	if err := c.Save(func(k embedding.Key) bool { return k != gone }); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get(gone); ok || c.Len() != 2 {
		t.Errorf("Save kept an entry it was told to drop: %d entries", c.Len())
	}

	again := embedding.NewCache(path)
	if err := again.Load(); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[embedding.Key][]float32{a: {1, 2, 3}, b: {-0.5, 0, 1e-30}} {
		got, ok := again.Get(k)
		if !ok || !cmp.Equal(got, want) {
			t.Errorf("loaded %v, %v; want %v", got, ok, want)
		}
	}
	if _, ok := again.Get(gone); ok || again.Len() != 2 {
		t.Errorf("the dropped entry was saved: %d entries", again.Len())
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil || len(entries) != 1 {
		t.Errorf("the folder holds %v (%v), want only the cache file", entries, err)
	}

	// Empty is a valid cache too.
	if err := again.Save(func(embedding.Key) bool { return false }); err != nil {
		t.Fatal(err)
	}
	empty := embedding.NewCache(path)
	if err := empty.Load(); err != nil || empty.Len() != 0 {
		t.Errorf("empty cache: %v, %d entries", err, empty.Len())
	}

	if KeyOf := embedding.KeyOf; KeyOf("m", "ab") == KeyOf("ma", "b") || KeyOf("m", "a") == KeyOf("n", "a") {
		t.Error("keys of different (model, text) collide")
	}
}

// A vector of another dimension means the model's output changed: the
// old vectors go.
func TestCacheDimensionChange(t *testing.T) {
	t.Parallel()
	c := embedding.NewCache("")
	c.Put(embedding.KeyOf("m", "a"), []float32{1, 2})
	c.Put(embedding.KeyOf("m", "b"), []float32{1, 2, 3})
	if _, ok := c.Get(embedding.KeyOf("m", "a")); ok || c.Len() != 1 {
		t.Errorf("a vector of the old dimension stayed: %d entries", c.Len())
	}
	c.Put(embedding.KeyOf("m", "c"), nil)
	if c.Len() != 1 {
		t.Error("an empty vector was kept")
	}
	if err := c.Save(nil); err != nil || c.Len() != 1 {
		t.Errorf("in-memory Save: %v", err)
	}
}

// A damaged file is ignored whole, with an error saying so: never a crash,
// never half of it.
func TestCacheCorrupt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.vec")
	c := embedding.NewCache(good)
	for _, text := range []string{"a", "b", "c"} {
		c.Put(embedding.KeyOf("m", text), []float32{1, 2, 3, 4})
	}
	if err := c.Save(nil); err != nil {
		t.Fatal(err)
	}
	whole, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), whole...)
	flipped[len(flipped)/2] ^= 0x40
	tests := map[string][]byte{
		"empty":           {},
		"truncated":       whole[:len(whole)-7],
		"header only":     whole[:16],
		"a flipped bit":   flipped,
		"another format":  []byte(`{"vectors": []}`),
		"garbage":         []byte(strings.Repeat("\xff", 200)),
		"without its sum": whole[:len(whole)-32],
	}
	for name, b := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".vec")
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			c := embedding.NewCache(path)
			if err := c.Load(); !errors.Is(err, embedding.ErrCorrupt) || !strings.Contains(err.Error(), path) {
				t.Errorf("Load = %v, want ErrCorrupt naming the file", err)
			}
			if c.Len() != 0 {
				t.Errorf("%d entries from a damaged file", c.Len())
			}
			// And it heals on the next save.
			c.Put(embedding.KeyOf("m", "x"), []float32{1})
			if err := c.Save(nil); err != nil {
				t.Fatal(err)
			}
			if err := embedding.NewCache(path).Load(); err != nil {
				t.Errorf("after a save: %v", err)
			}
		})
	}
}

func TestCacheSaveFails(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c := embedding.NewCache(filepath.Join(file, "embeddings", "m.vec")) // a folder under a file
	c.Put(embedding.KeyOf("m", "a"), []float32{1})
	if err := c.Save(nil); err == nil || !strings.Contains(err.Error(), "save embeddings cache") {
		t.Errorf("Save under a file = %v", err)
	}
	if c.Len() != 1 {
		t.Error("a failed save lost the entries in memory")
	}
}
