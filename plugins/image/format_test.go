package image

import (
	"strings"
	"testing"
)

func TestSniffAndDescribe(t *testing.T) {
	t.Parallel()
	riff := func(chunk string) []byte {
		b := []byte("RIFF\x00\x00\x00\x00WEBP" + chunk)
		return append(b, make([]byte, 8)...)
	}
	tests := map[string]struct {
		data []byte
		want string // "" when sniff refuses it
	}{
		"PNG":                {encoded(t, "png", 7, 5), "a 7x5 PNG image ("},
		"JPEG":               {encoded(t, "jpeg", 9, 2), "a 9x2 JPEG image ("},
		"WebP, extended":     {webp, "a 300x200 WebP image (30 bytes)"},
		"WebP, lossless":     {riff("VP8L\x05\x00\x00\x00\x2f\x2b\xc1\x31\x00"), "a 300x200 WebP image"},
		"WebP, lossy":        {riff("VP8 \x0a\x00\x00\x00\x00\x00\x00\x9d\x01\x2a\x2c\x01\xc8\x00"), "a 300x200 WebP image"},
		"WebP, cut short":    {[]byte("RIFF\x00\x00\x00\x00WEBPVP8X"), "a WebP image (16 bytes)"},
		"PNG, header broken": {[]byte("\x89PNG\r\n\x1a\nnot really"), "a PNG image (18 bytes)"},
		"GIF":                {[]byte("GIF89a\x01\x00\x01\x00"), ""},
		"RIFF, not WebP":     {[]byte("RIFF\x00\x00\x00\x00WAVEfmt "), ""},
		"empty":              {nil, ""},
		"text":               {[]byte("<svg xmlns='http://www.w3.org/2000/svg'/>"), ""},
	}
	for name, tc := range tests {
		f, ok := sniff(tc.data)
		if ok != (tc.want != "") {
			t.Errorf("%s: sniff = %v, %v", name, f, ok)
			continue
		}
		if got := describe(f, tc.data); ok && !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: describe = %q, want %q", name, got, tc.want)
		}
	}
}
