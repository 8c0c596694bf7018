// Package jsonmember edits one member of a JSON object in place of a
// typed round trip: what the MCP transports need to carry a value the
// go-sdk's types cannot (the cursor "", which they drop as empty).
package jsonmember

import (
	"bytes"
	"encoding/json"
)

// ReplaceString returns the JSON object obj with its member key set to
// the string to, when the member is the string from; ok is false, and obj
// unchanged, otherwise (no such member, another value, not an object).
func ReplaceString(obj json.RawMessage, key, from, to string) (_ json.RawMessage, ok bool) {
	if len(bytes.TrimSpace(obj)) == 0 {
		return obj, false
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(obj, &members) != nil {
		return obj, false
	}
	var value string
	if raw, present := members[key]; !present || json.Unmarshal(raw, &value) != nil || value != from {
		return obj, false
	}
	members[key], _ = json.Marshal(to)
	out, err := json.Marshal(members)
	if err != nil {
		return obj, false
	}
	return out, true
}
