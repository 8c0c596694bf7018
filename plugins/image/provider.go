package image

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/ramabana/ramabana-mcp/internal/apimessage"
	"github.com/ramabana/ramabana-mcp/internal/textcut"
	"github.com/ramabana/ramabana-mcp/sdk"
)

const (
	// defaultMaxImage caps an image, decoded.
	defaultMaxImage = 16 << 20
	// maxExcerpt is how much of an error answer a message shows.
	maxExcerpt = 300
)

type genRequest struct {
	Model          string `json:"model"`
	Prompt         string `json:"prompt"`
	N              int    `json:"n"`
	Size           string `json:"size,omitempty"`
	ResponseFormat string `json:"response_format,omitempty"`
}

type genAnswer struct {
	Data []struct {
		B64JSON       string `json:"b64_json"`
		URL           string `json:"url"`
		RevisedPrompt string `json:"revised_prompt"`
	} `json:"data"`
}

// generated is one image the provider made.
type generated struct {
	data          []byte
	format        format
	revisedPrompt string
}

// generate asks p for one image of prompt at size, and fetches it when
// the answer is a URL. Its failures are tool errors; the caller redacts
// the key from them.
func (s *server) generate(ctx context.Context, p *provider, prompt, size string) (*generated, error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	body := genRequest{Model: p.model, Prompt: prompt, N: 1, Size: size, ResponseFormat: "b64_json"}
	status, raw, err := s.post(ctx, p, body)
	if err == nil && status == http.StatusBadRequest && mentions(raw, "response_format") {
		// gpt-image models always answer in base64 and refuse the field.
		body.ResponseFormat = ""
		status, raw, err = s.post(ctx, p, body)
	}
	if err != nil {
		return nil, s.requestError(parent, ctx, p, err)
	}
	if status != http.StatusOK {
		return nil, httpError(p, status, p.redact(raw))
	}
	var ans genAnswer
	if err := json.Unmarshal(raw, &ans); err != nil {
		return nil, sdk.Failf("the image provider at %s did not answer with the images JSON (%v); is it an OpenAI-compatible images API? The answer starts: %s", p.shown, err, apimessage.Excerpt(p.redact(raw), 200))
	}
	if len(ans.Data) == 0 {
		return nil, sdk.Failf("the image provider at %s answered with no image: %s", p.shown, apimessage.Excerpt(p.redact(raw), 200))
	}
	d := ans.Data[0]
	var data []byte
	switch {
	case d.B64JSON != "":
		data, err = decodeBase64(d.B64JSON, "b64_json", s.maxImage)
	case d.URL != "":
		data, err = s.download(parent, ctx, p, d.URL)
	default:
		err = sdk.Failf("the image provider at %s answered with neither b64_json nor url for the image", p.shown)
	}
	if err != nil {
		return nil, err
	}
	f, ok := sniff(data)
	if !ok {
		return nil, sdk.Failf("the image provider at %s sent something that is not a PNG, JPEG or WebP image (%s starting %q); refused", p.shown, byteSize(len(data)), textcut.Prefix(data, 8))
	}
	return &generated{data: data, format: f, revisedPrompt: strings.TrimSpace(d.RevisedPrompt)}, nil
}

// maxAnswer caps the provider's JSON answer: one image in base64 and
// some room for the rest.
func (s *server) maxAnswer() int { return s.maxImage/3*4 + 1<<20 }

// post sends one generation request and reads the answer, at most
// maxAnswer bytes of it.
func (s *server) post(ctx context.Context, p *provider, body genRequest) (status int, raw []byte, err error) {
	b, err := json.Marshal(body)
	if err != nil {
		return 0, nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint.String(), bytes.NewReader(b))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	if p.key != "" {
		req.Header.Set("Authorization", "Bearer "+p.key)
	}
	resp, err := s.api.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return 0, nil, sdk.Failf("the image provider at %s answered with a redirect (HTTP %s) to %s; put the address it should be asked at in the \"url\" of the \"image\" entry of %s", p.shown, resp.Status, redactURL(resp.Header.Get("Location")), p.file)
	}
	raw, err = io.ReadAll(io.LimitReader(resp.Body, int64(s.maxAnswer())+1))
	if err != nil {
		return 0, nil, err
	}
	if len(raw) > s.maxAnswer() && resp.StatusCode == http.StatusOK {
		return 0, nil, sdk.Failf("the image provider's answer is larger than %s, more than one image of at most %s takes; refused", byteSize(s.maxAnswer()), byteSize(s.maxImage))
	}
	return resp.StatusCode, raw, nil
}

// requestError turns a failed request into a tool error: parent is the
// call's context, ctx the one bounded by the provider's timeout.
func (s *server) requestError(parent, ctx context.Context, p *provider, err error) error {
	var te *sdk.ToolError
	var dns *net.DNSError
	switch {
	case errors.As(err, &te):
		return err
	case parent.Err() != nil:
		return parent.Err()
	case ctx.Err() != nil:
		return sdk.Failf("the image provider at %s did not answer within %s; try again later, or ask the user to raise \"timeout_seconds\" (at most %d) in the \"image\" entry of %s", p.shown, p.timeout, maxTimeoutSeconds, p.file)
	case errors.Is(err, syscall.ECONNREFUSED):
		return sdk.Failf("the image provider at %s refused the connection; is it running at that address? (the \"url\" of the \"image\" entry of %s)", p.shown, p.file)
	case errors.As(err, &dns):
		return sdk.Failf("the image provider's host name in %s does not resolve; check the \"url\" of the \"image\" entry of %s", p.shown, p.file)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // its URL may hold a query
	}
	return sdk.Failf("the image provider at %s could not be reached: %v", p.shown, err)
}

// httpError is the tool error for an answer other than 200, with the
// provider's own message.
func httpError(p *provider, status int, raw []byte) error {
	msg := strings.TrimRight(apimessage.Of(raw, maxExcerpt), ". ")
	if msg != "" {
		msg = ": " + msg
	}
	var hint string
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		if p.key == "" {
			hint = fmt.Sprintf(". No API key was sent: %s is not set in this plugin's environment. Tell the user to set it (or name the key's variable in \"key_env\" of the \"image\" entry of %s) and to start ramabana-mcp with --plugin-env %s", p.keyEnv, p.file, p.keyEnv)
		} else {
			hint = fmt.Sprintf(". The API key in %s was refused; ask the user to check it", p.keyEnv)
		}
	case status == http.StatusTooManyRequests:
		hint = ". Rate limited or out of quota; wait before trying again, or ask the user to check the account"
	case status == http.StatusNotFound:
		hint = fmt.Sprintf(". Is %s an OpenAI-compatible images API, and model %q one it serves?", p.shown, p.model)
	case status >= 500:
		hint = ". The provider failed; try again later"
	case status >= 400:
		hint = ". Change the prompt or size if the message says what was wrong with them"
	}
	return sdk.Failf("the image provider at %s answered HTTP %d %s%s%s", p.shown, status, http.StatusText(status), msg, hint)
}

// decodeBase64 decodes an image sent in base64 (standard alphabet, padded
// or not; a data: URL prefix is allowed), refusing one larger than
// limit bytes before decoding it.
func decodeBase64(s, field string, limit int) ([]byte, error) {
	if rest, ok := strings.CutPrefix(s, "data:"); ok {
		if _, data, ok := strings.Cut(rest, ";base64,"); ok {
			s = data
		}
	}
	s = strings.TrimRight(strings.TrimSpace(s), "=")
	if base64.RawStdEncoding.DecodedLen(len(s)) > limit {
		return nil, sdk.Failf("the image provider sent an image larger than %s (%s of base64 in %s); refused", byteSize(limit), byteSize(len(s)), field)
	}
	data, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil {
		return nil, sdk.Failf("the image provider sent an image that is not valid base64 in %s (%v); refused", field, err)
	}
	return data, nil
}

// redact hides the API key in b, which a provider may echo; it goes
// before an excerpt is cut, since a cut key would not match.
func (p *provider) redact(b []byte) []byte {
	if p.key == "" || !bytes.Contains(b, []byte(p.key)) {
		return b
	}
	return bytes.ReplaceAll(b, []byte(p.key), []byte(redacted))
}

// redacted stands for the API key in every message.
const redacted = "[redacted]"

// mentions reports whether an error answer names word.
func mentions(raw []byte, word string) bool {
	return bytes.Contains(raw, []byte(word))
}
