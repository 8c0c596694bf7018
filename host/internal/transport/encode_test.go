package transport

import (
	"bytes"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestEncodeMessageIsTheSDKs: the fast path writes what
// jsonrpc.EncodeMessage writes, byte for byte, for every kind of message
// and id, and leaves no newline in a frame.
func TestEncodeMessageIsTheSDKs(t *testing.T) {
	id := func(v any) jsonrpc.ID {
		t.Helper()
		i, err := jsonrpc.MakeID(v)
		if err != nil {
			t.Fatal(err)
		}
		return i
	}
	results := []string{
		`{}`,
		`{"content":[{"type":"text","text":"a <b> & c\u2028 d\n\"e\""}],"isError":false}`,
		`{"tools":[{"name":"é","inputSchema":{"type":"object"}}]}`,
		`[1,2.5,null,true]`,
		`"just a string"`,
		"{\"a\":\n1}", // not one line: the SDK compacts it
	}
	var msgs []jsonrpc.Message
	for _, r := range results {
		for _, i := range []any{float64(0), float64(-7), float64(1 << 52), "x", "a\"b\\c</d>\u2028\u00e9\x01"} {
			msgs = append(msgs, &jsonrpc.Response{ID: id(i), Result: []byte(r)})
		}
	}
	msgs = append(msgs,
		&jsonrpc.Response{ID: id(float64(3)), Error: errors.New("boom")},
		&jsonrpc.Response{ID: id(float64(4)), Error: &jsonrpc.Error{Code: -32600, Message: "bad"}},
		&jsonrpc.Response{ID: id(float64(5))},
		&jsonrpc.Request{ID: id(float64(6)), Method: "roots/list", Params: []byte(`{}`)},
		&jsonrpc.Request{Method: "notifications/progress", Params: []byte(`{"progress":1}`)},
	)
	for _, m := range msgs {
		want, wantErr := jsonrpc.EncodeMessage(m)
		got, err := encodeMessage(m)
		if (err != nil) != (wantErr != nil) || !bytes.Equal(got, want) {
			t.Errorf("%#v:\n got %s (%v)\nwant %s (%v)", m, got, err, want, wantErr)
		}
		if bytes.IndexByte(got, '\n') >= 0 {
			t.Errorf("%#v: a newline in the frame %q", m, got)
		}
	}
}

// BenchmarkEncodeToolsList: a tools/list result of 20 tools (19 KB), as
// the SDK encodes it and as encodeMessage does.
func BenchmarkEncodeToolsList(b *testing.B) {
	tool := `{"name":"view_file","description":"Read a file as numbered lines; large files come a page at a time.","inputSchema":{"type":"object","properties":{"path":{"type":"string","description":"file, relative to the first served folder"},"start":{"type":"integer","minimum":1},"limit":{"type":"integer","minimum":1,"maximum":10000}},"required":["path"],"additionalProperties":false},"annotations":{"readOnlyHint":true,"openWorldHint":false}},`
	result := []byte(`{"tools":[` + string(bytes.Repeat([]byte(tool), 40)) + `{}]}`)
	id, _ := jsonrpc.MakeID(float64(2))
	msg := &jsonrpc.Response{ID: id, Result: result}
	b.Run("sdk", func(b *testing.B) {
		b.SetBytes(int64(len(result)))
		for b.Loop() {
			if _, err := jsonrpc.EncodeMessage(msg); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("transport", func(b *testing.B) {
		b.SetBytes(int64(len(result)))
		for b.Loop() {
			if _, err := encodeMessage(msg); err != nil {
				b.Fatal(err)
			}
		}
	})
}
