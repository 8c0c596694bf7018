package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ramabana/ramabana-mcp/host/internal/openaiapi"
)

// OpenAIConfig configures an OpenAI-compatible chat completions backend.
type OpenAIConfig struct {
	// BaseURL of the API, e.g. http://127.0.0.1:11434/v1 (Ollama),
	// http://127.0.0.1:8080/v1 (llama.cpp), https://api.openai.com/v1 (the
	// default). A URL without a path gets /v1.
	BaseURL string
	// APIKey is sent as a bearer token; empty sends none (local servers).
	// The environment is never read: the host passes the key.
	APIKey string
	// KeyEnv names the environment variable the key came from, for the
	// message of an authentication failure.
	KeyEnv string
	// Model is used when a Request does not name one.
	Model string
	// HTTPClient defaults to a client with a 10-minute response-header
	// timeout; the request context bounds everything else.
	HTTPClient *http.Client
	// MaxRetries is how many times a rate-limited (429), failed (408, 409,
	// 5xx) or dropped request is retried; 0 means 3, negative means none.
	// A refused connection, a DNS failure, 401/403 and other 4xx are never
	// retried.
	MaxRetries int
	// MaxRetryWait is the longest single wait the backend accepts; a server
	// asking for more (Retry-After) fails at once with ErrRateLimited,
	// stating the wait. 0 means 1 minute.
	MaxRetryWait time.Duration
	// Logger receives one line per retry; nil discards.
	Logger *slog.Logger
}

// OpenAI is the backend NewOpenAI returns.
type OpenAI struct {
	api        *openaiapi.Client
	url        string // the base URL
	endpoint   string // url/chat/completions
	model      string
	keyEnv     string
	maxRetries int
	maxWait    time.Duration
	log        *slog.Logger
	urlErr     error
}

var _ Backend = (*OpenAI)(nil)

// NewOpenAI returns a backend for an OpenAI-compatible chat completions API
// with tool calling. It sends only model, messages and tools (the tool
// schemas as given), so servers that reject unknown parameters accept it.
//
// It speaks to the server through openaiapi, the host's light client of
// OpenAI-compatible APIs (the embeddings client's too), and retries on its
// own: a refused connection fails at once with ErrUnreachable (a local
// server that is not running), and a 429 waits exactly what Retry-After
// (or Retry-After-Ms) says, at most MaxRetryWait and never past the
// context's deadline, and the final error states the wait.
func NewOpenAI(cfg OpenAIConfig) *OpenAI {
	b := &OpenAI{
		model:      cfg.Model,
		keyEnv:     cfg.KeyEnv,
		maxRetries: cfg.MaxRetries,
		maxWait:    cfg.MaxRetryWait,
		log:        cfg.Logger,
	}
	if b.maxRetries == 0 {
		b.maxRetries = 3
	} else if b.maxRetries < 0 {
		b.maxRetries = 0
	}
	if b.maxWait <= 0 {
		b.maxWait = time.Minute
	}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	base, err := normalizeBaseURL(cfg.BaseURL)
	b.url, b.urlErr = base, err
	b.endpoint = base + "/chat/completions"
	hc := cfg.HTTPClient
	if hc == nil {
		hc = openaiapi.NewHTTPClient(10 * time.Minute)
	}
	// Nothing is read from the environment (no OPENAI_API_KEY, no
	// OPENAI_BASE_URL): a key meant for api.openai.com must not be sent to
	// whatever BaseURL names.
	b.api = &openaiapi.Client{HTTP: hc, Key: cfg.APIKey}
	return b
}

// normalizeBaseURL is the base URL requests go under: the default API for
// "", else openaiapi.BaseURL's (a URL without a path gets /v1) without its
// query.
func normalizeBaseURL(raw string) (string, error) {
	if raw == "" {
		return "https://api.openai.com/v1", nil
	}
	u, err := openaiapi.BaseURL(raw)
	if err != nil {
		return raw, fmt.Errorf("model URL %q is not an http(s) URL", raw)
	}
	u.RawQuery, u.ForceQuery = "", false
	return u.String(), nil
}

// Complete sends one chat completion request, retrying as OpenAIConfig
// describes.
func (b *OpenAI) Complete(ctx context.Context, req *Request) (*Response, error) {
	model := req.Model
	if model == "" {
		model = b.model
	}
	if b.urlErr != nil {
		return nil, &BackendError{Kind: ErrUnreachable, URL: b.url, Model: model, Detail: "bad configuration", Err: b.urlErr}
	}
	body, err := json.Marshal(chatRequest(model, req))
	if err != nil { // cannot happen: strings and valid raw JSON
		return nil, &BackendError{Kind: ErrRejected, URL: b.url, Model: model, Detail: "the request cannot be encoded", Err: err}
	}
	for attempt := 0; ; attempt++ {
		ans, err := b.api.Post(ctx, b.endpoint, body)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err == nil {
			return b.reply(model, ans)
		}
		f := b.classify(model, err)
		if !f.retry {
			return nil, f.err
		}
		wait := f.wait
		if wait < 0 {
			wait = backoff(attempt)
		}
		if attempt >= b.maxRetries {
			if attempt > 0 {
				f.err.Detail += fmt.Sprintf("; gave up after %d retries", attempt)
			}
			if f.err.RetryAfter > 0 {
				f.err.Detail += fmt.Sprintf("; the server asks to wait %s before trying again", roundWait(f.err.RetryAfter))
			}
			return nil, f.err
		}
		if wait > b.maxWait {
			f.err.Detail += fmt.Sprintf("; the server asks to wait %s, longer than the %s this backend waits", roundWait(wait), roundWait(b.maxWait))
			return nil, f.err
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			f.err.Detail += fmt.Sprintf("; the server asks to wait %s, past the deadline of this turn", roundWait(wait))
			return nil, f.err
		}
		b.log.Info("model request failed, retrying", "url", b.url, "model", model,
			"error", f.err.Detail, "attempt", attempt+1, "wait", wait)
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		case <-timer.C:
		}
	}
}

// reply reads a 2xx answer.
func (b *OpenAI) reply(model string, ans *openaiapi.Answer) (*Response, error) {
	be := &BackendError{Kind: ErrBadResponse, URL: b.url, Model: model, Status: ans.Status, Detail: "the reply is not a chat completion"}
	if ans.Cut {
		be.Err = fmt.Errorf("it is longer than %d MB", openaiapi.DefaultMaxBody>>20)
		return nil, be
	}
	cc, err := openaiapi.ParseCompletion(ans.Body)
	if err != nil {
		be.Err = err
		return nil, be
	}
	resp, err := fromCompletion(cc)
	if err != nil {
		be.Detail, be.Err = "the reply is not a usable chat completion", err
		return nil, be
	}
	return resp, nil
}

// backoff is the wait before retry attempt+1 when the server names none.
func backoff(attempt int) time.Duration {
	d := 500 * time.Millisecond << min(attempt, 4)
	return min(d, 8*time.Second)
}

func roundWait(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Second)
	}
	return d.Round(time.Millisecond)
}

type failure struct {
	err   *BackendError
	retry bool
	wait  time.Duration // < 0: use backoff
}

func (b *OpenAI) classify(model string, err error) failure {
	be := &BackendError{URL: b.url, Model: model}
	var se *openaiapi.StatusError
	if !errors.As(err, &se) {
		return classifyTransport(be, err)
	}
	code := se.Code
	be.Status = code
	if code < 400 {
		// A 1xx or 3xx the HTTP client did not follow.
		be.Kind, be.Detail, be.Err = ErrBadResponse, "the reply is not a chat completion", err
		return failure{err: be}
	}
	// The status and the server's own message, in the shapes OpenAI,
	// Ollama, llama.cpp and vLLM use, the key hidden.
	status := se.Status()
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		be.Kind = ErrAuth
		key := "the API key"
		if b.keyEnv != "" {
			key = "the API key in $" + b.keyEnv
		}
		be.Detail = fmt.Sprintf("the server refused the credentials (%s); check %s", status, key)
		return failure{err: be}
	case code == http.StatusTooManyRequests:
		be.Kind = ErrRateLimited
		be.Detail = fmt.Sprintf("rate limited (%s)", status)
		wait, ok := retryAfter(se.Header, time.Now())
		if !ok {
			return failure{err: be, retry: true, wait: -1}
		}
		be.RetryAfter = wait
		return failure{err: be, retry: true, wait: wait}
	case code == http.StatusRequestTimeout || code == http.StatusConflict || code >= 500:
		be.Kind = ErrServer
		be.Detail = fmt.Sprintf("the server failed (%s)", status)
		if wait, ok := retryAfter(se.Header, time.Now()); ok {
			be.RetryAfter = wait
			return failure{err: be, retry: true, wait: wait}
		}
		return failure{err: be, retry: true, wait: -1}
	default:
		be.Kind = ErrRejected
		be.Detail = fmt.Sprintf("the server rejected the request (%s)", status)
		return failure{err: be}
	}
}

func classifyTransport(be *BackendError, err error) failure {
	be.Kind, be.Err = ErrUnreachable, err
	switch {
	case openaiapi.Refused(err):
		be.Detail = "connection refused; is the model server running at this URL?"
		return failure{err: be}
	case openaiapi.NoSuchHost(err):
		be.Detail = "the host name does not resolve"
		return failure{err: be}
	case openaiapi.TimedOut(err):
		be.Detail = "the request timed out"
		return failure{err: be, retry: true, wait: -1}
	default:
		be.Detail = "the connection failed"
		return failure{err: be, retry: true, wait: -1}
	}
}

// retryAfter reads Retry-After-Ms or Retry-After (seconds or an HTTP date).
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && !math.IsInf(ms, 0) && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 || math.IsNaN(s) || s > 1e9 {
			return 0, false
		}
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

func chatRequest(model string, req *Request) *openaiapi.ChatRequest {
	r := &openaiapi.ChatRequest{Model: model, Messages: make([]openaiapi.Message, 0, len(req.Messages))}
	for _, m := range req.Messages {
		r.Messages = append(r.Messages, toParam(m))
	}
	for _, t := range req.Tools {
		r.Tools = append(r.Tools, functionTool(t))
	}
	return r
}

func toParam(m Message) openaiapi.Message {
	switch m.Role {
	case RoleSystem:
		return openaiapi.SystemMessage(m.Content)
	case RoleTool:
		return openaiapi.ToolMessage(m.Content, m.ToolCallID)
	case RoleAssistant:
		var calls []openaiapi.ToolCall
		for _, c := range m.ToolCalls {
			calls = append(calls, openaiapi.FunctionCallOf(c.ID, c.Name, c.Arguments))
		}
		return openaiapi.AssistantMessage(m.Content, calls)
	default:
		return openaiapi.UserMessage(m.Content)
	}
}

var emptyObjectSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// functionTool passes the tool's schema through byte for byte: decoding it
// into a map would reorder keys and turn integers into floats.
func functionTool(t Tool) openaiapi.Tool {
	schema := t.InputSchema
	if len(schema) == 0 || !json.Valid(schema) || string(schema) == "null" {
		schema = emptyObjectSchema
	}
	return openaiapi.FunctionTool(t.Name, t.Description, schema)
}

func fromCompletion(cc *openaiapi.Completion) (*Response, error) {
	if cc == nil || len(cc.Choices) == 0 {
		return nil, errors.New("no choices in the reply")
	}
	ch := cc.Choices[0]
	msg := Message{Role: RoleAssistant, Content: string(ch.Message.Content)}
	if msg.Content == "" && ch.Message.Refusal != "" {
		msg.Content = string(ch.Message.Refusal)
	}
	for _, tc := range ch.Message.ToolCalls {
		call := ToolCall{ID: string(tc.ID), Name: string(tc.Function.Name), Arguments: string(tc.Function.Arguments)}
		if tc.Type == "custom" && tc.Custom != nil {
			call.Name, call.Arguments = string(tc.Custom.Name), string(tc.Custom.Input)
		}
		msg.ToolCalls = append(msg.ToolCalls, call)
	}
	return &Response{
		Message:      msg,
		Usage:        Usage{Prompt: int(cc.Usage.PromptTokens), Completion: int(cc.Usage.CompletionTokens)},
		FinishReason: string(ch.FinishReason),
	}, nil
}
