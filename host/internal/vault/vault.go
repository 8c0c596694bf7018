// Package vault keeps the personal and secret values that --pii --vault
// hides from the model, so that the model works with stable placeholders
// (⟦email:3⟧) and the write tools it calls still get the real values.
//
// A [Vault] hands out one placeholder per distinct value of a kind
// ([Vault.Placeholders], which a pii.Filter calls) and turns placeholders
// in a tool's arguments back into the values ([Vault.RevealJSON]). The
// numbering is kept in the database, so a placeholder means the same value
// in every session of every server that shares the config dir, and across
// restarts: a conversation that outlives its server keeps working.
//
// On disk (CFG/vault.db, SQLite, mode 0600) each value is sealed with
// AES-256-GCM, bound to its placeholder, and found again by an HMAC-SHA256
// of its kind and text; the file holds no value in the clear. Both keys
// are derived (HKDF-SHA256) from one 32-byte key kept apart from the
// database, in a key file (CFG/vault.key, or the file $RAMABANA_VAULT_KEY_FILE
// names), created 0600 with the vault and refused when others can read it.
// A key file rather than an OS keyring: the server runs headless under
// clients and in containers, where no keyring answers; the file can live on
// another volume, or be mounted from a secret store.
package vault

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/ramabana/ramabana-mcp/host/internal/pii"
	"github.com/ramabana/ramabana-mcp/internal/sqlitedb"
)

// File names in the config dir, and the variable that moves the key.
const (
	DBName     = "vault.db"
	KeyName    = "vault.key"
	KeyFileEnv = "RAMABANA_VAULT_KEY_FILE"
)

// keyCheck is sealed into the database with its key, so that opening it
// with another key fails at once instead of at the first reveal.
const keyCheck = "ramabana-mcp vault key check"

const schema = `
CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS entries(
	scope  TEXT    NOT NULL,
	kind   TEXT    NOT NULL,
	n      INTEGER NOT NULL,
	mac    BLOB    NOT NULL,
	sealed BLOB    NOT NULL,
	PRIMARY KEY (scope, kind, n),
	UNIQUE (scope, mac)
);`

// Vault is an open vault. It is safe for concurrent use, and several
// processes may share one vault file.
type Vault struct {
	db     *sqlitedb.DB
	aead   cipher.AEAD
	macKey []byte
	path   string
	scope  string
	known  pii.KnownSet // every value of the scope this process has seen

	mu       sync.Mutex
	byMAC    map[string]string // HMAC of kind and value → placeholder
	byHolder map[string]string // placeholder → value
}

// Scope names the placeholders of one set of served folders: a server
// gives out, and turns back, only its scope's, so a model working in one
// project can never have another project's values written out. roots are
// made absolute and their symbolic links resolved (where they resolve),
// and their order does not matter.
func Scope(roots []string) string {
	clean := make([]string, len(roots))
	for i, r := range roots {
		if abs, err := filepath.Abs(r); err == nil {
			r = abs
		}
		if real, err := filepath.EvalSymlinks(r); err == nil {
			r = real
		}
		clean[i] = filepath.Clean(r)
	}
	slices.Sort(clean)
	clean = slices.Compact(clean)
	sum := sha256.Sum256([]byte(strings.Join(clean, "\x00")))
	return hex.EncodeToString(sum[:16])
}

// KeyPath is where the key of the vault in the config dir cfg lives:
// $RAMABANA_VAULT_KEY_FILE, or cfg/vault.key.
func KeyPath(cfg string) string {
	if p := os.Getenv(KeyFileEnv); p != "" {
		return p
	}
	return filepath.Join(cfg, KeyName)
}

// Open opens the vault at dbPath with the key in keyPath, creating both
// if neither exists, for the placeholders of scope (see Scope), whose
// values it reads into memory. A vault that holds values is never given a
// new key: without its key file, or with another vault's, Open fails
// saying so.
func Open(ctx context.Context, dbPath, keyPath, scope string) (*Vault, error) {
	db, err := sqlitedb.Open(dbPath, "vault", 4)
	if err != nil {
		return nil, err
	}
	v, err := open(ctx, db, dbPath, keyPath, scope)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	return v, nil
}

func open(ctx context.Context, db *sqlitedb.DB, dbPath, keyPath, scope string) (*Vault, error) {
	if _, err := db.ExecContext(ctx, schema); err != nil {
		return nil, fmt.Errorf("vault %s: create tables: %w", dbPath, err)
	}
	var check []byte
	err := db.QueryRowContext(ctx, `SELECT value FROM meta WHERE name = 'check'`).Scan(&check)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("vault %s: %w", dbPath, err)
	}
	key, err := readKey(keyPath)
	switch {
	case errors.Is(err, fs.ErrNotExist) && check == nil:
		key, err = createKey(keyPath)
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("vault key %s is missing: the values in %s cannot be read without it; restore the key file (or set $%s to where it is), or move %s away to start an empty vault", keyPath, dbPath, KeyFileEnv, dbPath)
	}
	if err != nil {
		return nil, err
	}
	v, err := newVault(db, dbPath, key, scope)
	if err != nil {
		return nil, err
	}
	if check == nil {
		sealed := v.seal([]byte(keyCheck), "check")
		if _, err := db.ExecContext(ctx, `INSERT OR IGNORE INTO meta(name, value) VALUES('check', ?)`, sealed); err != nil {
			return nil, fmt.Errorf("vault %s: %w", dbPath, err)
		}
		// Another process may have created it first, with its key.
		if err := db.QueryRowContext(ctx, `SELECT value FROM meta WHERE name = 'check'`).Scan(&check); err != nil {
			return nil, fmt.Errorf("vault %s: %w", dbPath, err)
		}
	}
	if got, err := v.unseal(check, "check"); err != nil || string(got) != keyCheck {
		return nil, fmt.Errorf("vault key %s does not open %s: the key file was replaced or belongs to another vault; restore the right key, or move %s away to start an empty vault", keyPath, dbPath, dbPath)
	}
	if err := v.load(ctx); err != nil {
		return nil, err
	}
	return v, nil
}

// load reads the scope's values into memory, so that they are found
// wherever they were written since (KnownSet).
func (v *Vault) load(ctx context.Context) error {
	rows, err := v.db.QueryContext(ctx, `SELECT kind, n, mac, sealed FROM entries WHERE scope = ?`, v.scope)
	if err != nil {
		return fmt.Errorf("vault %s: %w", v.path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind string
		var n int64
		var mac, sealed []byte
		if err := rows.Scan(&kind, &n, &mac, &sealed); err != nil {
			return fmt.Errorf("vault %s: %w", v.path, err)
		}
		holder := pii.FormatPlaceholder(pii.Kind(kind), n)
		plain, err := v.unseal(sealed, v.aad(holder))
		if err != nil {
			return fmt.Errorf("vault %s: %s does not open with this key: the vault was tampered with", v.path, holder)
		}
		v.remember(string(mac), holder, pii.Kind(kind), string(plain))
	}
	return rows.Err()
}

// remember keeps a value in memory. The caller holds v.mu, or is open.
func (v *Vault) remember(mac, holder string, kind pii.Kind, value string) {
	v.byMAC[mac] = holder
	v.byHolder[holder] = value
	if kind != pii.Literal {
		// Placeholder-shaped text is found by its shape; as a known
		// value it would hide the vault's own placeholders where they
		// are meant to pass (the agent's answer).
		v.known.Add(kind, value)
	}
}

// aad is what a value's seal is bound to: its scope and placeholder.
func (v *Vault) aad(holder string) string { return v.scope + "\x00" + holder }

// FindKnown appends a finding for every place in text where a value of
// the scope seen by this process occurs (pii.Placeholders).
func (v *Vault) FindKnown(text string, all []pii.Finding) []pii.Finding {
	return v.known.Find(text, all)
}

func newVault(db *sqlitedb.DB, path string, key []byte, scope string) (*Vault, error) {
	encKey, err := hkdf.Key(sha256.New, key, nil, "ramabana-mcp vault: seal", 32)
	if err != nil {
		return nil, err
	}
	macKey, err := hkdf.Key(sha256.New, key, nil, "ramabana-mcp vault: find", 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(encKey)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Vault{
		db: db, aead: aead, macKey: macKey, path: path, scope: scope,
		byMAC: map[string]string{}, byHolder: map[string]string{},
	}, nil
}

// readKey reads a key file: 64 hex digits. One that others may read is
// refused, as ssh refuses such a private key.
func readKey(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if runtime.GOOS != "windows" && info.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("vault key %s can be read by other users (mode %04o): run chmod 600 %s", path, info.Mode().Perm(), path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("vault key: %w", err)
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("vault key %s is not a vault key (64 hex digits)", path)
	}
	return key, nil
}

// createKey writes a new random key to path, 0600. The key is written
// to a temporary file and linked into place whole, so another process
// never reads half a key; if one linked its key first, that one is read.
func createKey(path string) ([]byte, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("vault key: %w", err)
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	f, err := os.CreateTemp(dir, ".vault-key-*")
	if err != nil {
		return nil, fmt.Errorf("vault key: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.WriteString(hex.EncodeToString(key) + "\n")
	if err == nil {
		err = f.Chmod(0o600) // CreateTemp makes it 0600 already; say so
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("vault key: %w", err)
	}
	if err := os.Link(tmp, path); errors.Is(err, fs.ErrExist) {
		return readKey(path)
	} else if err != nil {
		return nil, fmt.Errorf("vault key: %w", err)
	}
	return key, nil
}

// Close closes the vault's database.
func (v *Vault) Close() error { return v.db.Close() }

// Path is the vault's database file.
func (v *Vault) Path() string { return v.path }

// seal encrypts value, bound to its placeholder (or "check"): a sealed
// value moved to another row does not open.
func (v *Vault) seal(value []byte, holder string) []byte {
	nonce := make([]byte, v.aead.NonceSize(), v.aead.NonceSize()+len(value)+v.aead.Overhead())
	_, _ = rand.Read(nonce)
	return v.aead.Seal(nonce, nonce, value, []byte(holder))
}

func (v *Vault) unseal(sealed []byte, holder string) ([]byte, error) {
	n := v.aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("sealed value too short")
	}
	return v.aead.Open(nil, sealed[:n], sealed[n:], []byte(holder))
}

func (v *Vault) mac(kind pii.Kind, value string) string {
	m := hmac.New(sha256.New, v.macKey)
	m.Write([]byte(kind))
	m.Write([]byte{0})
	m.Write([]byte(value))
	return string(m.Sum(nil))
}

// Placeholders returns the placeholder of each value (pii.Placeholders):
// the one it already has, or the next number of its kind, kept in the
// vault before it is returned. New values are kept in one transaction.
func (v *Vault) Placeholders(values []pii.Value) ([]string, error) {
	out := make([]string, len(values))
	macs := make([]string, len(values))
	var missing []int
	v.mu.Lock()
	for i, val := range values {
		macs[i] = v.mac(val.Kind, val.Text)
		if p, ok := v.byMAC[macs[i]]; ok {
			out[i] = p
		} else {
			missing = append(missing, i)
		}
	}
	v.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	ctx := context.Background()
	found := map[string]string{} // mac → placeholder, within the transaction
	err := v.db.Write(ctx, func(tx *sql.Tx) error {
		clear(found)
		for _, i := range missing {
			val, mac := values[i], macs[i]
			if _, ok := found[mac]; ok {
				continue
			}
			var n int64
			err := tx.QueryRowContext(ctx, `SELECT n FROM entries WHERE scope = ? AND mac = ?`, v.scope, []byte(mac)).Scan(&n)
			if errors.Is(err, sql.ErrNoRows) {
				if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(n), 0) + 1 FROM entries WHERE scope = ? AND kind = ?`, v.scope, string(val.Kind)).Scan(&n); err != nil {
					return err
				}
				holder := pii.FormatPlaceholder(val.Kind, n)
				sealed := v.seal([]byte(val.Text), v.aad(holder))
				if _, err := tx.ExecContext(ctx, `INSERT INTO entries(scope, kind, n, mac, sealed) VALUES(?, ?, ?, ?, ?)`, v.scope, string(val.Kind), n, []byte(mac), sealed); err != nil {
					return err
				}
			} else if err != nil {
				return err
			}
			found[mac] = pii.FormatPlaceholder(val.Kind, n)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("vault %s: keep values: %w", v.path, err)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, i := range missing {
		p := found[macs[i]]
		out[i] = p
		v.remember(macs[i], p, values[i].Kind, values[i].Text)
	}
	return out, nil
}

// UnknownError is the error of revealing placeholders the vault never gave
// out (a model that made one up or mistyped it).
type UnknownError struct{ Holders []string }

// Error names the placeholders without their brackets: a filtered error
// text must not hold text shaped like a placeholder.
func (e *UnknownError) Error() string {
	names := make([]string, len(e.Holders))
	for i, h := range e.Holders {
		names[i] = strings.Trim(h, "⟦⟧")
	}
	return fmt.Sprintf("%s %s not a placeholder this server gave out: copy placeholders exactly as a tool's result showed them", strings.Join(names, ", "), isAre(len(names)))
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// Reveal returns text with each placeholder replaced by its value. A
// placeholder the vault does not hold is an *UnknownError naming it.
func (v *Vault) Reveal(text string) (string, error) {
	return v.reveal(text, false, func(value string) string { return value })
}

// RevealKnown is Reveal that leaves a placeholder the vault does not hold
// as the text it is: for a model's own words (the ask agent's answer),
// which leave the server through the outbound gate again, where such text
// is hidden behind a placeholder of its own and each value is shown as its
// placeholder. Its error is the vault's failing, never an *UnknownError.
func (v *Vault) RevealKnown(text string) (string, error) {
	return v.reveal(text, true, func(value string) string { return value })
}

// reveal returns text with each placeholder replaced by write(its value),
// or an *UnknownError naming the placeholders the vault does not hold;
// with keepUnknown, those stay as they are.
func (v *Vault) reveal(text string, keepUnknown bool, write func(value string) string) (string, error) {
	refs := pii.FindPlaceholders(text)
	if len(refs) == 0 {
		return text, nil
	}
	var b strings.Builder
	var unknown []string
	last := 0
	for _, r := range refs {
		holder := text[r.Start:r.End]
		value, ok, err := v.value(holder, r)
		if err != nil {
			return "", err
		}
		if !ok && keepUnknown {
			continue
		}
		if !ok {
			if !slices.Contains(unknown, holder) {
				unknown = append(unknown, holder)
			}
			continue
		}
		b.WriteString(text[last:r.Start])
		b.WriteString(write(value))
		last = r.End
	}
	if len(unknown) > 0 {
		return "", &UnknownError{Holders: unknown}
	}
	b.WriteString(text[last:])
	return b.String(), nil
}

// value is the value behind one placeholder, from memory or the database.
func (v *Vault) value(holder string, r pii.PlaceholderRef) (string, bool, error) {
	v.mu.Lock()
	value, ok := v.byHolder[holder]
	v.mu.Unlock()
	if ok {
		return value, true, nil
	}
	// Another process of the scope may have kept it since this one
	// loaded the vault.
	var mac, sealed []byte
	err := v.db.QueryRow(`SELECT mac, sealed FROM entries WHERE scope = ? AND kind = ? AND n = ?`, v.scope, string(r.Kind), r.N).Scan(&mac, &sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("vault %s: %w", v.path, err)
	}
	plain, err := v.unseal(sealed, v.aad(holder))
	if err != nil {
		return "", false, fmt.Errorf("vault %s: %s does not open with this key: the vault was tampered with", v.path, holder)
	}
	v.mu.Lock()
	v.remember(string(mac), holder, r.Kind, string(plain))
	v.mu.Unlock()
	return string(plain), true, nil
}

// RevealJSON returns a tool's JSON arguments with each placeholder
// written as itself in the JSON text replaced by its value, escaped for a
// JSON string; the rest of the text is left as it is. A placeholder written
// with escapes (\u27e6email:1\u27e7) stays text: a model writes
// placeholders as it was shown them, and escapes are how a hostile file
// would smuggle one past the filter that hides placeholder-shaped text.
// Errors as Reveal's.
func (v *Vault) RevealJSON(args json.RawMessage) (json.RawMessage, error) {
	return v.revealJSON(args, false)
}

// RevealKnownJSON is RevealJSON that leaves a placeholder the vault does
// not hold as the text it is (see RevealKnown). Its error is the vault's
// failing, never an *UnknownError.
func (v *Vault) RevealKnownJSON(args json.RawMessage) (json.RawMessage, error) {
	return v.revealJSON(args, true)
}

func (v *Vault) revealJSON(args json.RawMessage, keepUnknown bool) (json.RawMessage, error) {
	if !bytes.Contains(args, []byte("⟦")) {
		return args, nil
	}
	out, err := v.reveal(string(args), keepUnknown, func(value string) string {
		quoted, _ := json.Marshal(value) // a string always marshals
		return string(quoted[1 : len(quoted)-1])
	})
	if err != nil {
		return nil, err
	}
	return json.RawMessage(out), nil
}
