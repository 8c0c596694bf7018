package image

import (
	"bytes"
	"encoding/binary"
	"fmt"
	stdimage "image"
	_ "image/jpeg" // for DecodeConfig
	_ "image/png"
)

// format is an image type the tool returns.
type format struct {
	name, mime, ext string
}

var (
	pngFormat  = format{"PNG", "image/png", ".png"}
	jpegFormat = format{"JPEG", "image/jpeg", ".jpg"}
	webpFormat = format{"WebP", "image/webp", ".webp"}
)

// extensions are the file name endings a saved image may have, by format.
var extensions = map[string]format{".png": pngFormat, ".jpg": jpegFormat, ".jpeg": jpegFormat, ".webp": webpFormat}

// sniff tells the format of data by its first bytes; ok is false for
// anything but PNG, JPEG and WebP.
func sniff(data []byte) (f format, ok bool) {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return pngFormat, true
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return jpegFormat, true
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return webpFormat, true
	}
	return format{}, false
}

// dimensions reads an image's width and height from its header; ok is
// false when the header cannot be read.
func dimensions(f format, data []byte) (w, h int, ok bool) {
	if f == webpFormat {
		return webpDimensions(data)
	}
	c, _, err := stdimage.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0, false
	}
	return c.Width, c.Height, true
}

// webpDimensions reads the first chunk of a WebP file: VP8X (extended),
// VP8L (lossless) or VP8 (lossy).
func webpDimensions(b []byte) (w, h int, ok bool) {
	if len(b) < 30 {
		return 0, 0, false
	}
	le24 := func(p []byte) int { return int(p[0]) | int(p[1])<<8 | int(p[2])<<16 }
	switch string(b[12:16]) {
	case "VP8X":
		return 1 + le24(b[24:27]), 1 + le24(b[27:30]), true
	case "VP8L":
		if b[20] != 0x2f {
			return 0, 0, false
		}
		v := binary.LittleEndian.Uint32(b[21:25])
		return 1 + int(v&0x3fff), 1 + int(v>>14&0x3fff), true
	case "VP8 ":
		if b[23] != 0x9d || b[24] != 0x01 || b[25] != 0x2a {
			return 0, 0, false
		}
		return int(binary.LittleEndian.Uint16(b[26:28]) & 0x3fff), int(binary.LittleEndian.Uint16(b[28:30]) & 0x3fff), true
	}
	return 0, 0, false
}

// describe is "a 1024x1024 PNG image (1.5 MiB)", without the size when
// the header cannot be read.
func describe(f format, data []byte) string {
	if w, h, ok := dimensions(f, data); ok {
		return fmt.Sprintf("a %dx%d %s image (%s)", w, h, f.name, byteSize(len(data)))
	}
	return fmt.Sprintf("a %s image (%s)", f.name, byteSize(len(data)))
}

func byteSize(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
}
