package host

import "testing"

// The client's roots are served only when the user named no folder, over
// stdio (one client's own process), and without --vault (whose store is
// scoped to the folders it opens for).
func TestClientRootsOnlyWithoutRootOverStdio(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want bool
	}{
		{"no --root, stdio", func(*Config) {}, true},
		{"--root", func(c *Config) { c.Roots = []string{"."} }, false},
		{"http", func(c *Config) { c.Transport = "http" }, false},
		{"--vault", func(c *Config) { c.Vault, c.PII = true, "redact" }, false},
	} {
		c := Defaults()
		tc.edit(&c)
		if err := c.Check(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if c.clientRoots != tc.want {
			t.Errorf("%s: client roots %v; want %v", tc.name, c.clientRoots, tc.want)
		}
		if len(c.Roots) != 1 || c.Roots[0] != "." {
			t.Errorf("%s: roots %v; want the current folder to start with", tc.name, c.Roots)
		}
	}
}
