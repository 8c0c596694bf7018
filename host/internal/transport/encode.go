package transport

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// encodeMessage is jsonrpc.EncodeMessage, byte for byte, without its
// second pass over a result. A response's result is JSON the SDK marshalled
// already (compact, no HTML escaping); EncodeMessage marshals the envelope
// around it with encoding/json, which validates and compacts the result
// again: a third of the server's CPU for a tools/list of 20 tools (19 KB),
// and a whole pass over every large file view_file returns. Here a
// response's envelope is written around the result as it is. Everything
// else, and a result that is not one line (a CR or LF in it), goes
// through EncodeMessage.
func encodeMessage(msg jsonrpc.Message) ([]byte, error) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil || len(resp.Result) == 0 || hasLineBreak(resp.Result) {
		return jsonrpc.EncodeMessage(msg)
	}
	var id []byte
	switch v := resp.ID.Raw().(type) {
	case int64:
		id = strconv.AppendInt(nil, v, 10)
	case string:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false) // as the SDK encodes
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		id = bytes.TrimRight(buf.Bytes(), "\n")
	default: // no id: not a response the server sends
		return jsonrpc.EncodeMessage(msg)
	}
	out := make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"result":}`)+len(id)+len(resp.Result))
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"result":`...)
	out = append(out, resp.Result...)
	return append(out, '}'), nil
}

// hasLineBreak reports whether b holds a CR or LF: two vectorised scans,
// where bytes.ContainsAny with two bytes goes byte by byte (a twentieth
// of the server's CPU for a tools/list of 20 tools).
func hasLineBreak(b []byte) bool {
	return bytes.IndexByte(b, '\n') >= 0 || bytes.IndexByte(b, '\r') >= 0
}
