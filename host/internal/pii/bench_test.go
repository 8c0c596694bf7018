package pii

import (
	"go/build"
	"os"
	"path/filepath"
	"strconv"
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

// BenchmarkFindNamesLongLine: a line of names as long as a minified JSON
// document costs in proportion to its length (it once cost its square:
// each name looked back to the line's start for backticks). Compare the
// ns/op of the two sizes: the larger should be about 4 times the smaller.
func BenchmarkFindNamesLongLine(b *testing.B) {
	f := Filter{Names: true}
	for _, kib := range []int{64, 256} {
		line := strings.Repeat("Mr. John Smith, ", kib*1024/16)
		b.Run(strconv.Itoa(kib)+"KiB", func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				f.Find(line)
			}
		})
	}
}
