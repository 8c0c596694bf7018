package pii

import "fmt"

// Mode is what the host does with a tool result that contains PII. (The
// constants carry a Mode prefix because Redact is also the function.)
type Mode int

const (
	// ModeOff passes results through untouched; the default.
	ModeOff Mode = iota
	// ModeRedact replaces each finding with a placeholder such as
	// [REDACTED:email] (see [Redact]).
	ModeRedact
	// ModeRefuse withholds a result that contains any finding.
	ModeRefuse
)

// ParseMode parses the --pii flag's value: "off", "redact" or "refuse".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "off":
		return ModeOff, nil
	case "redact":
		return ModeRedact, nil
	case "refuse":
		return ModeRefuse, nil
	}
	return ModeOff, fmt.Errorf("pii mode %q: want off, redact or refuse", s)
}

// String returns the name ParseMode accepts.
func (m Mode) String() string {
	switch m {
	case ModeOff:
		return "off"
	case ModeRedact:
		return "redact"
	case ModeRefuse:
		return "refuse"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}
