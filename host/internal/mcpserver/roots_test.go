package mcpserver

import "testing"

func TestFilePathOfARootsURI(t *testing.T) {
	for _, tc := range []struct {
		uri, goos, want string
		ok              bool
	}{
		{"file:///home/a/b", "linux", "/home/a/b", true},
		{"file://localhost/home/a", "linux", "/home/a", true},
		{"file:///home/my%20project/", "linux", "/home/my project", true},
		{"file://server/share", "linux", "", false},
		{"https://example.com/a", "linux", "", false},
		{"file:relative", "linux", "", false},
		{"file:///C:/Users/a", "windows", `C:\Users\a`, true},
		{"file:///c%3A/Users/my%20a", "windows", `c:\Users\my a`, true},
		{"file://server/share/a", "windows", `\\server\share\a`, true},
		{"file:///no-drive", "windows", "", false},
	} {
		got, ok := filePath(tc.uri, tc.goos)
		if got != tc.want || ok != tc.ok {
			t.Errorf("filePath(%q, %s) = %q, %v; want %q, %v", tc.uri, tc.goos, got, ok, tc.want, tc.ok)
		}
	}
}
