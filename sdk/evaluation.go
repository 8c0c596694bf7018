package sdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/ramabana/ramabana-mcp/internal/textcut"
)

// Evaluation is an evaluation tool's verdict on an agent's answer. Its
// JSON is {"is_valid": bool, "score": number, "feedback": string|null},
// all three always present; a nil Feedback is null.
type Evaluation struct {
	IsValid  bool    `json:"is_valid"`
	Score    float64 `json:"score"`
	Feedback *string `json:"feedback"`
}

// Valid is a passing verdict with no feedback.
func Valid(score float64) Evaluation { return Evaluation{IsValid: true, Score: score} }

// Invalid is a failing verdict with feedback for the next try.
func Invalid(score float64, feedback string) Evaluation {
	return Evaluation{Score: score, Feedback: &feedback}
}

// evaluationSchema is the output schema of an evaluation tool.
var evaluationSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"is_valid":{"type":"boolean","description":"whether the answer passes"},` +
	`"score":{"type":"number","description":"how good the answer is"},` +
	`"feedback":{"type":["string","null"],"description":"what to change, for another try"}},` +
	`"required":["is_valid","score","feedback"],"additionalProperties":false}`)

// MarshalJSON refuses a score that is not a finite number, which JSON
// cannot carry.
func (e Evaluation) MarshalJSON() ([]byte, error) {
	if math.IsNaN(e.Score) || math.IsInf(e.Score, 0) {
		return nil, fmt.Errorf("evaluation score %v is not a finite number", e.Score)
	}
	type plain Evaluation
	return json.Marshal(plain(e))
}

// UnmarshalJSON reads an evaluation tool's JSON, of this server's tools or
// any other's: is_valid (a boolean) and score (a number) are required,
// feedback is a string, null or absent; other members are ignored. The
// error says what is wrong.
func (e *Evaluation) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return errNotEvaluation
	}
	var out Evaluation
	raw, ok := m["is_valid"]
	if !ok {
		return errors.New(`"is_valid" is missing`)
	}
	if isNull(raw) || json.Unmarshal(raw, &out.IsValid) != nil {
		return fmt.Errorf(`"is_valid" is %s, want true or false`, raw)
	}
	if raw, ok = m["score"]; !ok {
		return errors.New(`"score" is missing`)
	}
	if isNull(raw) || json.Unmarshal(raw, &out.Score) != nil {
		return fmt.Errorf(`"score" is %s, want a number`, raw)
	}
	if raw, ok = m["feedback"]; ok && !isNull(raw) {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return fmt.Errorf(`"feedback" is %s, want a string or null`, raw)
		}
		out.Feedback = &s
	}
	*e = out
	return nil
}

var errNotEvaluation = errors.New(`not a JSON object {"is_valid": bool, "score": number, "feedback": string|null}`)

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// ParseEvaluation reads the verdict of an evaluation tool's result: its
// structured content when it has one, else its text (the JSON of
// Evaluation). A result with IsError set gives an error holding its text,
// as does one that is not an evaluation.
func ParseEvaluation(r *Result) (Evaluation, error) {
	if r == nil {
		return Evaluation{}, errors.New("evaluation result: no result")
	}
	if r.IsError {
		return Evaluation{}, fmt.Errorf("evaluation tool failed: %s", r.Text())
	}
	data := []byte(r.Structured)
	if len(data) == 0 {
		data = []byte(r.Text())
	}
	var ev Evaluation
	if !json.Valid(data) {
		// Unmarshal would say only where the syntax breaks.
		return Evaluation{}, fmt.Errorf("evaluation result: %w: %q", errNotEvaluation, clip(string(data), 200))
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		return Evaluation{}, fmt.Errorf("evaluation result: %w", err)
	}
	return ev, nil
}

// clip is s cut to at most n bytes, on a rune boundary, marked when cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return textcut.Prefix(s, n) + "..."
}
