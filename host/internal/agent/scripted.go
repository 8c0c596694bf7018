package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrScriptExhausted is returned by a Scripted backend asked for more
// replies than it was given.
var ErrScriptExhausted = errors.New("scripted backend has no reply left")

// Scripted is a Backend for tests: it replays the given replies in order
// and records every request it was sent. It is safe for concurrent use.
type Scripted struct {
	mu      sync.Mutex
	replies []Response
	sent    []Request
}

var _ Backend = (*Scripted)(nil)

// NewScripted returns a backend that answers the n-th request with
// replies[n].
func NewScripted(replies ...Response) *Scripted {
	s := &Scripted{}
	for _, r := range replies {
		r.Message = r.Message.clone()
		s.replies = append(s.replies, r)
	}
	return s
}

// Complete records req and returns the next reply. A done ctx returns
// ctx.Err() without consuming a reply.
func (s *Scripted) Complete(ctx context.Context, req *Request) (*Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, req.clone())
	n := len(s.sent)
	if n > len(s.replies) {
		return nil, fmt.Errorf("request %d: %w (it was given %d)", n, ErrScriptExhausted, len(s.replies))
	}
	r := s.replies[n-1]
	r.Message = r.Message.clone()
	if r.Message.Role == "" {
		r.Message.Role = RoleAssistant
	}
	return &r, nil
}

// Sent returns deep copies of the requests received so far, in order.
func (s *Scripted) Sent() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.sent))
	for i := range s.sent {
		out[i] = s.sent[i].clone()
	}
	return out
}

// Text is a reply with a final answer.
func Text(answer string) Response {
	return Response{Message: Message{Role: RoleAssistant, Content: answer}, FinishReason: "stop"}
}

// Calls is a reply asking for tool calls.
func Calls(calls ...ToolCall) Response {
	return Response{Message: Message{Role: RoleAssistant, ToolCalls: calls}, FinishReason: "tool_calls"}
}
