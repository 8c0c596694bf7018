package activity

import "strings"

// Caller says who made a call: [Client] for an MCP client, or
// "agent:<turn id>" for the ask agent (see [Agent]).
type Caller string

// Client is the caller of every call that comes from an MCP client.
const Client Caller = "client"

// Server is the caller of an event the server itself caused, such as an
// upstream server connecting at start.
const Server Caller = "server"

const agentPrefix = "agent:"

// Agent is the caller of a call the ask agent made in the given turn.
func Agent(turn string) Caller { return Caller(agentPrefix + turn) }

// IsAgent reports whether the call came from the ask agent.
func (c Caller) IsAgent() bool { return strings.HasPrefix(string(c), agentPrefix) }

// Turn is the agent turn id, or "" for a client call.
func (c Caller) Turn() string {
	t, _ := strings.CutPrefix(string(c), agentPrefix)
	if !c.IsAgent() {
		return ""
	}
	return t
}

// Outcome is how a call ended.
type Outcome string

const (
	// OK is a result without isError.
	OK Outcome = "ok"
	// ToolError is a result with isError: a failure the model can act on.
	ToolError Outcome = "tool error"
	// Failed is a Go error: the plugin died, a protocol fault, a timeout.
	Failed Outcome = "failed"
	// Cancelled is a call whose context was cancelled.
	Cancelled Outcome = "cancelled"
)
