package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"

	"github.com/ramabana/ramabana-mcp/internal/apimessage"
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
	svc        openai.ChatCompletionService
	url        string
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
// Retries are this backend's own: openai-go's built-in retry is turned off
// (option.WithMaxRetries(0)) because it retries a refused connection with
// backoff, which would delay ErrUnreachable for a local server that is not
// running, and it waits out a Retry-After of up to two minutes without
// regard to the turn's deadline. Here a 429 waits exactly what Retry-After
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
	hc := cfg.HTTPClient
	if hc == nil {
		hc = defaultHTTPClient()
	}
	opts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	// NewChatCompletionService, unlike openai.NewClient, does not read
	// OPENAI_API_KEY or OPENAI_BASE_URL from the environment: a key meant
	// for api.openai.com must not be sent to whatever BaseURL names.
	b.svc = openai.NewChatCompletionService(opts...)
	return b
}

func defaultHTTPClient() *http.Client {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		t = t.Clone()
		t.ResponseHeaderTimeout = 10 * time.Minute
		return &http.Client{Transport: t}
	}
	return &http.Client{}
}

func normalizeBaseURL(raw string) (string, error) {
	if raw == "" {
		return "https://api.openai.com/v1", nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return raw, fmt.Errorf("model URL %q is not an http(s) URL", raw)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1"
	}
	u.RawQuery, u.Fragment = "", ""
	return strings.TrimSuffix(u.String(), "/"), nil
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
	params := chatParams(model, req)
	for attempt := 0; ; attempt++ {
		var httpResp *http.Response
		cc, err := b.svc.New(ctx, params, option.WithResponseInto(&httpResp))
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err == nil {
			resp, cerr := fromCompletion(cc)
			if cerr != nil {
				return nil, &BackendError{Kind: ErrBadResponse, URL: b.url, Model: model, Status: statusOf(httpResp), Detail: "the reply is not a usable chat completion", Err: cerr}
			}
			return resp, nil
		}
		f := b.classify(model, httpResp, err)
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

func statusOf(r *http.Response) int {
	if r == nil {
		return 0
	}
	return r.StatusCode
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

func (b *OpenAI) classify(model string, httpResp *http.Response, err error) failure {
	be := &BackendError{URL: b.url, Model: model}
	if httpResp == nil || httpResp.StatusCode < 400 {
		if httpResp != nil {
			// A 2xx whose body did not decode.
			be.Kind, be.Status, be.Detail, be.Err = ErrBadResponse, httpResp.StatusCode, "the reply is not a chat completion", err
			return failure{err: be}
		}
		return classifyTransport(be, err)
	}
	code := httpResp.StatusCode
	be.Status = code
	msg := errorMessage(httpResp, err)
	status := fmt.Sprintf("%d %s", code, http.StatusText(code))
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		be.Kind = ErrAuth
		key := "the API key"
		if b.keyEnv != "" {
			key = "the API key in $" + b.keyEnv
		}
		be.Detail = fmt.Sprintf("the server refused the credentials (%s%s); check %s", status, msg, key)
		return failure{err: be}
	case code == http.StatusTooManyRequests:
		be.Kind = ErrRateLimited
		be.Detail = fmt.Sprintf("rate limited (%s%s)", status, msg)
		wait, ok := retryAfter(httpResp.Header, time.Now())
		if !ok {
			return failure{err: be, retry: true, wait: -1}
		}
		be.RetryAfter = wait
		return failure{err: be, retry: true, wait: wait}
	case code == http.StatusRequestTimeout || code == http.StatusConflict || code >= 500:
		be.Kind = ErrServer
		be.Detail = fmt.Sprintf("the server failed (%s%s)", status, msg)
		if wait, ok := retryAfter(httpResp.Header, time.Now()); ok {
			be.RetryAfter = wait
			return failure{err: be, retry: true, wait: wait}
		}
		return failure{err: be, retry: true, wait: -1}
	default:
		be.Kind = ErrRejected
		be.Detail = fmt.Sprintf("the server rejected the request (%s%s)", status, msg)
		return failure{err: be}
	}
}

func classifyTransport(be *BackendError, err error) failure {
	be.Kind, be.Err = ErrUnreachable, err
	var dns *net.DNSError
	var nerr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		be.Detail = "connection refused; is the model server running at this URL?"
		return failure{err: be}
	case errors.As(err, &dns):
		be.Detail = "the host name does not resolve"
		return failure{err: be}
	case errors.As(err, &nerr) && nerr.Timeout():
		be.Detail = "the request timed out"
		return failure{err: be, retry: true, wait: -1}
	default:
		be.Detail = "the connection failed"
		return failure{err: be, retry: true, wait: -1}
	}
}

// errorMessage extracts the server's own message from an error response, in
// the shapes OpenAI, Ollama, llama.cpp and vLLM use, prefixed with ": ".
func errorMessage(resp *http.Response, err error) string {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) && apiErr.Message != "" {
		return ": " + apiErr.Message
	}
	if resp.Body == nil {
		return ""
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	text := apimessage.Of(body, 500)
	if text == "" {
		return ""
	}
	return ": " + text
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

func chatParams(model string, req *Request) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{Model: model}
	for _, m := range req.Messages {
		p.Messages = append(p.Messages, toParam(m))
	}
	for _, t := range req.Tools {
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(functionDef(t)))
	}
	return p
}

func toParam(m Message) openai.ChatCompletionMessageParamUnion {
	switch m.Role {
	case RoleSystem:
		return openai.SystemMessage(m.Content)
	case RoleTool:
		return openai.ToolMessage(m.Content, m.ToolCallID)
	case RoleAssistant:
		var a openai.ChatCompletionAssistantMessageParam
		if m.Content != "" || len(m.ToolCalls) == 0 {
			a.Content.OfString = param.NewOpt(m.Content)
		}
		for _, c := range m.ToolCalls {
			a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID:       c.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: c.Arguments},
				},
			})
		}
		return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}
	default:
		return openai.UserMessage(m.Content)
	}
}

var emptyObjectSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// functionDef passes the tool's schema through byte for byte: decoding it
// into openai.FunctionParameters (a map) would reorder keys and turn
// integers into floats.
func functionDef(t Tool) openai.FunctionDefinitionParam {
	schema := t.InputSchema
	if len(schema) == 0 || !json.Valid(schema) || string(schema) == "null" {
		schema = emptyObjectSchema
	}
	def := struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	}{t.Name, t.Description, schema}
	raw, _ := json.Marshal(def) // cannot fail: strings and valid raw JSON
	return param.Override[openai.FunctionDefinitionParam](json.RawMessage(raw))
}

func fromCompletion(cc *openai.ChatCompletion) (*Response, error) {
	if cc == nil || len(cc.Choices) == 0 {
		return nil, errors.New("no choices in the reply")
	}
	ch := cc.Choices[0]
	msg := Message{Role: RoleAssistant, Content: ch.Message.Content}
	if msg.Content == "" && ch.Message.Refusal != "" {
		msg.Content = ch.Message.Refusal
	}
	for _, tc := range ch.Message.ToolCalls {
		call := ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments}
		if tc.Type == "custom" {
			call.Name, call.Arguments = tc.Custom.Name, tc.Custom.Input
		}
		msg.ToolCalls = append(msg.ToolCalls, call)
	}
	return &Response{
		Message:      msg,
		Usage:        Usage{Prompt: int(cc.Usage.PromptTokens), Completion: int(cc.Usage.CompletionTokens)},
		FinishReason: ch.FinishReason,
	}, nil
}
