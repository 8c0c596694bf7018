package hashline

import (
	"fmt"
	"hash/fnv"
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestKnown pins hashes and lines as view_file has always shown them, so
// that the format cannot drift unnoticed: hashes shown before a change must
// still anchor edits after it.
func TestKnown(t *testing.T) {
	t.Parallel()
	for content, want := range map[string]string{
		// FNV-1a("") is 0x811c9dc5, folded 0x811c^0x9dc5.
		"":                 "1cd9",
		"a":                "cd20",
		"}":                "b0a4",
		"\t":               "6428",
		"a\r":              "9ed7",
		"    return x":     "04ea",
		"RESERVE = 16_384": "3278",
		"func main() {":    "cb99",
		"naïve ✓":          "e69d",
	} {
		if got := Hash(content); got != want {
			t.Errorf("Hash(%q) = %q, want %q", content, got, want)
		}
		if got, want := Line(12, content), "12|"+want+"|"+content; got != want {
			t.Errorf("Line(12, %q) = %q, want %q", content, got, want)
		}
	}
	var b strings.Builder
	WritePart(&b, 7, Sum("hello world"), "hello")
	if got, want := b.String(), "7|ea2c|hello"; got != want {
		t.Errorf("WritePart = %q, want %q", got, want)
	}
}

func TestHash(t *testing.T) {
	t.Parallel()
	ref := func(s string) string {
		h := fnv.New32a()
		h.Write([]byte(s))
		v := h.Sum32()
		return fmt.Sprintf("%04x", uint16(v>>16)^uint16(v))
	}
	tests := map[string]struct{ line, content string }{
		"empty":            {"", ""},
		"plain":            {"RESERVE = 16_384", "RESERVE = 16_384"},
		"lf":               {"    return x\n", "    return x"},
		"crlf":             {"    return x\r\n", "    return x"},
		"lone lf":          {"\n", ""},
		"lone crlf":        {"\r\n", ""},
		"lone cr kept":     {"a\r", "a\r"},
		"unicode":          {"naïve ✓", "naïve ✓"},
		"inner cr kept lf": {"a\rb\n", "a\rb"},
		"only one ending":  {"a\n\n", "a\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := Hash(tc.line)
			if want := ref(tc.content); got != want {
				t.Errorf("Hash(%q) = %q, want %q", tc.line, got, want)
			}
			if len(got) != 4 || strings.Trim(got, "0123456789abcdef") != "" {
				t.Errorf("Hash(%q) = %q, want 4 lowercase hex digits", tc.line, got)
			}
			if h := Sum(tc.content); fmt.Sprintf("%04x", h) != got {
				t.Errorf("Sum(%q) = %#04x, Hash(%q) = %q", tc.content, h, tc.line, got)
			}
			if h := Sum([]byte(tc.content)); fmt.Sprintf("%04x", h) != got {
				t.Errorf("Sum([]byte(%q)) = %#04x, Hash(%q) = %q", tc.content, h, tc.line, got)
			}
		})
	}
}

func TestPut(t *testing.T) {
	t.Parallel()
	for _, h := range []uint16{0, 1, 0xa, 0xf0, 0x1cd9, 0xabcd, 0xffff} {
		dst := []byte("[....]")
		Put(dst[1:5], h)
		if got, want := string(dst), fmt.Sprintf("[%04x]", h); got != want {
			t.Errorf("Put(%#x) wrote %q, want %q", h, got, want)
		}
	}
}

func TestWrite(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n       int
		content string
	}{
		{1, ""},
		{1, "x"},
		{9, "    return x"},
		{10, "a|b|c"},
		{123456789, "naïve ✓"},
		{math.MaxInt, "max"},
		{math.MinInt, "min"},
	} {
		want := strconv.Itoa(tc.n) + "|" + Hash(tc.content) + "|" + tc.content
		if got := Line(tc.n, tc.content); got != want {
			t.Errorf("Line(%d, %q) = %q, want %q", tc.n, tc.content, got, want)
		}
		var b strings.Builder
		b.WriteString(">")
		Write(&b, tc.n, tc.content)
		Write(&b, tc.n, []byte(tc.content))
		if got := b.String(); got != ">"+want+want {
			t.Errorf("Write(%d, %q) wrote %q, want %q twice", tc.n, tc.content, got, want)
		}
		b.Reset()
		part := tc.content[:len(tc.content)/2]
		WritePart(&b, tc.n, Sum(tc.content), part)
		WritePart(&b, tc.n, Sum([]byte(tc.content)), []byte(part))
		if want := strconv.Itoa(tc.n) + "|" + Hash(tc.content) + "|" + part; b.String() != want+want {
			t.Errorf("WritePart(%d, %q) wrote %q, want %q twice", tc.n, part, b.String(), want)
		}
	}
}

// TestWriteNoCopy checks that Write neither allocates nor keeps the []byte
// it is given.
func TestWriteNoCopy(t *testing.T) {
	content := []byte("    total_00042 = calc(a, b) + 0042")
	var b strings.Builder
	b.Grow(1 << 16)
	if allocs := testing.AllocsPerRun(100, func() {
		Write(&b, 42, content)
		WritePart(&b, 42, 0xbeef, content[:4])
	}); allocs != 0 {
		t.Errorf("Write and WritePart allocate %v times, want 0", allocs)
	}
	b.Reset()
	Write(&b, 1, content)
	content[0] = 'X'
	if want := "1|" + Hash("    total_00042 = calc(a, b) + 0042") + "|    total_00042 = calc(a, b) + 0042"; b.String() != want {
		t.Errorf("after a change to the []byte, Write wrote %q, want %q", b.String(), want)
	}
}

func TestPrefix(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct{ line, prefix string }{
		"plain":               {"x := 1", ""},
		"view line":           {"12|a3f0|    return x", "12|a3f0|"},
		"uppercase hash":      {"3|FFFF|c", "3|FFFF|"},
		"empty content":       {"7|0000|", "7|0000|"},
		"ending kept out":     {"2|beef|y\r\n", "2|beef|"},
		"20 digits":           {"12345678901234567890|abcd|x", "12345678901234567890|abcd|"},
		"21 digits":           {"123456789012345678901|abcd|x", ""},
		"indented":            {"  12|a3f0|x", ""},
		"three hex digits":    {"12|a3f|x", ""},
		"five hex digits":     {"12|a3f00|x", ""},
		"not hex":             {"12|a3g0|x", ""},
		"no line number":      {"|a3f0|x", ""},
		"negative":            {"-1|a3f0|x", ""},
		"markdown table":      {"| 1 | abcd |", ""},
		"bar after digits":    {"1|2|3", ""},
		"short":               {"1|abcd", ""},
		"empty":               {"", ""},
		"shell pipe and hash": {"10|head -n 1", ""},
	} {
		if got := Prefix(tc.line); got != tc.prefix {
			t.Errorf("%s: Prefix(%q) = %q, want %q", name, tc.line, got, tc.prefix)
		}
	}
	// Every line Line makes has its prefix.
	for _, n := range []int{1, 9, 10, 99999, math.MaxInt} {
		for _, c := range []string{"", "x", "1|abcd|y"} {
			line := Line(n, c)
			if want := line[:len(line)-len(c)]; Prefix(line) != want {
				t.Errorf("Prefix(%q) = %q, want %q", line, Prefix(line), want)
			}
		}
	}
}

func FuzzLine(f *testing.F) {
	f.Add(1, "")
	f.Add(12, "    return x")
	f.Add(3, "2|beef|y")
	f.Fuzz(func(t *testing.T, n int, content string) {
		if n < 1 || strings.ContainsAny(content, "\r\n") {
			t.Skip()
		}
		line := Line(n, content)
		p := Prefix(line)
		if p == "" || line[len(p):] != content {
			t.Fatalf("Line(%d, %q) = %q, Prefix %q", n, content, line, p)
		}
		if got := p[len(p)-5 : len(p)-1]; got != Hash(content) || got != Hash(content+"\n") || got != Hash(content+"\r\n") {
			t.Fatalf("Line(%d, %q) = %q, Hash %q", n, content, line, Hash(content))
		}
	})
}

var benchLine = "    total_00042 = calc(a, b) + 0042"

func BenchmarkSum(b *testing.B) {
	content := []byte(benchLine)
	b.SetBytes(int64(len(content)))
	var h uint16
	for b.Loop() {
		h ^= Sum(content)
	}
	_ = h
}

func BenchmarkWriteBytes(b *testing.B) { benchmarkWrite(b, []byte(benchLine)) }

func BenchmarkWriteString(b *testing.B) { benchmarkWrite(b, benchLine) }

func benchmarkWrite[T string | []byte](b *testing.B, content T) {
	var sb strings.Builder
	sb.Grow(1 << 16)
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for n := 1; b.Loop(); n++ {
		if sb.Len() > 1<<16-100 {
			sb.Reset()
			sb.Grow(1 << 16)
		}
		Write(&sb, n, content)
	}
}
