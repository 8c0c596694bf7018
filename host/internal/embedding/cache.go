package embedding

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Key identifies a vector: the SHA-256 of the model's name, a zero byte and
// the text.
type Key [sha256.Size]byte

// KeyOf is the key of text embedded by model.
func KeyOf(model, text string) Key {
	h := sha256.New()
	h.Write([]byte(model))
	h.Write([]byte{0})
	h.Write([]byte(text))
	var k Key
	h.Sum(k[:0])
	return k
}

// CachePath is where the vectors of model are kept under the config dir
// cfg: cfg/embeddings/<model>.vec, the model's name made a file name
// (characters other than letters, digits, '.', '_' and '-' become '_',
// followed then by a short hash of the name, so that two names stay two
// files).
func CachePath(cfg, model string) string {
	var b strings.Builder
	changed := false
	for _, r := range model {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '.' && b.Len() > 0, r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
			changed = true
		}
	}
	name := b.String()
	if changed || name == "" {
		sum := sha256.Sum256([]byte(model))
		name += fmt.Sprintf("-%x", sum[:4])
	}
	return filepath.Join(cfg, "embeddings", name+".vec")
}

// The file format, little-endian:
//
//	magic  [8]byte  "RBEMBED1"
//	dim    uint32   the vectors' dimension
//	count  uint32   the number of entries
//	count × (key [32]byte, vector dim × float32)
//	sum    [32]byte SHA-256 of everything before it
var magic = [8]byte{'R', 'B', 'E', 'M', 'B', 'E', 'D', '1'}

const headerSize = len(magic) + 4 + 4

// maxDim bounds the dimension a file may claim (the largest models have
// a few thousand).
const maxDim = 1 << 16

// ErrCorrupt is Load's error for a file that is not a whole cache file.
var ErrCorrupt = errors.New("embeddings cache file is corrupt")

// Cache holds vectors by Key, in memory and in one file. All its vectors
// have one dimension: a vector of another replaces every one of the old
// (the model's output changed). Safe for concurrent use. The vectors it
// returns are shared: callers must not modify them.
type Cache struct {
	path string // "" keeps the cache in memory only

	mu   sync.RWMutex
	dim  int
	vecs map[Key][]float32
}

// NewCache returns an empty cache kept in path ("" for none); Load reads
// what path holds.
func NewCache(path string) *Cache {
	return &Cache{path: path, vecs: map[Key][]float32{}}
}

// Path is the cache's file ("" for none).
func (c *Cache) Path() string { return c.path }

// Len is the number of vectors held.
func (c *Cache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.vecs)
}

// Get returns the vector of k.
func (c *Cache) Get(k Key) ([]float32, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.vecs[k]
	return v, ok
}

// Put keeps v as the vector of k (not a copy: the caller must not modify
// it). An empty v is ignored.
func (c *Cache) Put(k Key, v []float32) {
	if len(v) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(v) != c.dim {
		c.dim = len(v)
		clear(c.vecs)
	}
	c.vecs[k] = v
}

// Load adds the vectors of the cache's file to the cache (entries already
// held win). A missing file is an empty cache and no error. A file that
// is unreadable, truncated, of another format or whose checksum fails is
// ignored whole: the cache stays as it was and the error, wrapping
// ErrCorrupt for a bad file, says why.
func (c *Cache) Load() error {
	if c.path == "" {
		return nil
	}
	b, err := os.ReadFile(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read embeddings cache: %w", err)
	}
	dim, vecs, err := decodeCache(b)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrCorrupt, c.path, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.vecs) > 0 && dim != c.dim {
		return nil // what is held is newer
	}
	c.dim = dim
	for k, v := range vecs {
		if _, ok := c.vecs[k]; !ok {
			c.vecs[k] = v
		}
	}
	return nil
}

func decodeCache(b []byte) (int, map[Key][]float32, error) {
	if len(b) < headerSize+sha256.Size || !bytes.Equal(b[:len(magic)], magic[:]) {
		return 0, nil, errors.New("not a cache file of this version")
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return 0, nil, errors.New("checksum mismatch (truncated or damaged)")
	}
	dim := int(binary.LittleEndian.Uint32(b[8:]))
	count := int(binary.LittleEndian.Uint32(b[12:]))
	if count == 0 && len(body) == headerSize {
		return 0, map[Key][]float32{}, nil
	}
	entry := sha256.Size + 4*dim
	if dim <= 0 || dim > maxDim || (len(body)-headerSize)%entry != 0 || (len(body)-headerSize)/entry != count {
		return 0, nil, fmt.Errorf("%d entries of %d dimensions do not fill %d bytes", count, dim, len(body))
	}
	vecs := make(map[Key][]float32, count)
	floats := make([]float32, count*dim) // one allocation for every vector
	p := body[headerSize:]
	for i := range count {
		var k Key
		copy(k[:], p)
		p = p[sha256.Size:]
		v := floats[i*dim : (i+1)*dim : (i+1)*dim]
		for j := range v {
			v[j] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*j:]))
			if math.IsNaN(float64(v[j])) || math.IsInf(float64(v[j]), 0) {
				return 0, nil, fmt.Errorf("entry %d holds a value that is not a finite number", i)
			}
		}
		p = p[4*dim:]
		vecs[k] = v
	}
	return dim, vecs, nil
}

// Save drops every entry keep returns false for (nil keeps all), then
// writes the cache's file whole: a temp file in its folder, synced, then
// renamed over the old file, so that a crash leaves one or the other.
func (c *Cache) Save(keep func(Key) bool) error {
	c.mu.Lock()
	if keep != nil {
		for k := range c.vecs {
			if !keep(k) {
				delete(c.vecs, k)
			}
		}
	}
	if c.path == "" {
		c.mu.Unlock()
		return nil
	}
	b := c.encodeLocked()
	c.mu.Unlock()

	dir := filepath.Dir(c.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save embeddings cache: %w", err)
	}
	f, err := os.CreateTemp(dir, filepath.Base(c.path)+".tmp*")
	if err != nil {
		return fmt.Errorf("save embeddings cache: %w", err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), c.path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("save embeddings cache: %w", err)
	}
	return nil
}

func (c *Cache) encodeLocked() []byte {
	b := make([]byte, headerSize, headerSize+len(c.vecs)*(sha256.Size+4*c.dim)+sha256.Size)
	copy(b, magic[:])
	binary.LittleEndian.PutUint32(b[8:], uint32(c.dim))
	binary.LittleEndian.PutUint32(b[12:], uint32(len(c.vecs)))
	for k, v := range c.vecs {
		b = append(b, k[:]...)
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
	}
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}
