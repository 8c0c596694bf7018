package pii

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sourceMB returns about a megabyte of real Go source: the standard
// library's net/http, then more of the tree if needed.
func sourceMB(b *testing.B) string {
	b.Helper()
	var sb strings.Builder
	for _, dir := range []string{"net/http", "go/types", "runtime"} {
		files, _ := filepath.Glob(filepath.Join(build.Default.GOROOT, "src", dir, "*.go"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			sb.Write(data)
			if sb.Len() >= 1<<20 {
				return sb.String()[:1<<20]
			}
		}
	}
	b.Skip("Go source tree not found")
	return ""
}

func BenchmarkFindSource(b *testing.B) {
	text := sourceMB(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Find(text)
	}
}

// BenchmarkFindDense runs on text full of findings and near misses.
func BenchmarkFindDense(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "mixed.txt"))
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat(string(data), (1<<20)/len(data)+1)[:1<<20]
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Find(text)
	}
}

// BenchmarkFindSourceNames is BenchmarkFindSource with --pii-ner's names:
// its ratio to BenchmarkFindSource is the cost of the name detector.
func BenchmarkFindSourceNames(b *testing.B) {
	text := sourceMB(b)
	f := Filter{Names: true}
	f.Find("Dr. Jane Smith") // load the lists outside the loop
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		f.Find(text)
	}
}
