package ignore

import (
	"testing"
)

func TestMatch(t *testing.T) {
	t.Parallel()
	type probe struct {
		path    string
		dir     bool
		ignored bool
		decided bool
	}
	tests := map[string]struct {
		patterns string
		probes   []probe
	}{
		"literal any depth": {
			patterns: "build",
			probes: []probe{
				{path: "build", ignored: true, decided: true},
				{path: "a/b/build", dir: true, ignored: true, decided: true},
				{path: "builder"},
				{path: "build/x"},
			},
		},
		"suffix": {
			patterns: "*.log",
			probes: []probe{
				{path: "x.log", ignored: true, decided: true},
				{path: "a/b/.log", ignored: true, decided: true},
				{path: "x.log.txt"},
			},
		},
		"dir only": {
			patterns: "out/",
			probes: []probe{
				{path: "out", dir: true, ignored: true, decided: true},
				{path: "a/out", dir: true, ignored: true, decided: true},
				{path: "out"},
			},
		},
		"anchored": {
			patterns: "/top.txt\nsrc/gen",
			probes: []probe{
				{path: "top.txt", ignored: true, decided: true},
				{path: "a/top.txt"},
				{path: "src/gen", ignored: true, decided: true},
				{path: "x/src/gen"},
			},
		},
		"negation last wins": {
			patterns: "*.txt\n!keep.txt",
			probes: []probe{
				{path: "a.txt", ignored: true, decided: true},
				{path: "keep.txt", ignored: false, decided: true},
				{path: "d/keep.txt", ignored: false, decided: true},
			},
		},
		"negation then ignore": {
			patterns: "!keep.txt\n*.txt",
			probes: []probe{
				{path: "keep.txt", ignored: true, decided: true},
			},
		},
		"double star": {
			patterns: "**/logs\na/**/z\ndoc/**\n**/tmp/*.o",
			probes: []probe{
				{path: "logs", dir: true, ignored: true, decided: true},
				{path: "x/y/logs", dir: true, ignored: true, decided: true},
				{path: "a/z", ignored: true, decided: true},
				{path: "a/b/c/z", ignored: true, decided: true},
				{path: "ab/z"},
				{path: "doc"},
				{path: "doc/x", ignored: true, decided: true},
				{path: "doc/x/y", ignored: true, decided: true},
				{path: "tmp/a.o", ignored: true, decided: true},
				{path: "q/tmp/a.o", ignored: true, decided: true},
				{path: "q/tmp/r/a.o"},
			},
		},
		"star does not cross slash": {
			patterns: "a/*.c\nx**y",
			probes: []probe{
				{path: "a/b.c", ignored: true, decided: true},
				{path: "a/b/c.c"},
				{path: "xzzy", ignored: true, decided: true},
				{path: "d/xzzy", ignored: true, decided: true},
			},
		},
		"classes and question mark": {
			patterns: "file[0-9].txt\n[!a]b\n?z\n[[:upper:]]Q\n[",
			probes: []probe{
				{path: "file7.txt", ignored: true, decided: true},
				{path: "filex.txt"},
				{path: "cb", ignored: true, decided: true},
				{path: "ab"},
				{path: "éz", ignored: true, decided: true},
				{path: "AQ", ignored: true, decided: true},
				{path: "aQ"},
				{path: "[", ignored: true, decided: true},
			},
		},
		"comments escapes spaces crlf": {
			patterns: "# c\r\n\\#hash\r\n\\!bang\r\ntrail   \r\nsp\\ \r\n",
			probes: []probe{
				{path: "# c"},
				{path: "#hash", ignored: true, decided: true},
				{path: "!bang", ignored: true, decided: true},
				{path: "trail", ignored: true, decided: true},
				{path: "sp ", ignored: true, decided: true},
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := Parse([]byte(tc.patterns))
			for _, p := range tc.probes {
				ign, dec := m.Match(p.path, p.dir)
				if ign != p.ignored || dec != p.decided {
					t.Errorf("Match(%q, dir=%v) = %v, %v; want %v, %v", p.path, p.dir, ign, dec, p.ignored, p.decided)
				}
			}
		})
	}
}
