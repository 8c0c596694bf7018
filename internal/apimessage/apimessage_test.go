package apimessage

import (
	"strings"
	"testing"
)

func TestOf(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		body string
		n    int
		want string
	}{
		"openai":              {`{"error": {"message": "Incorrect API key", "type": "auth"}}`, 500, "Incorrect API key"},
		"ollama":              {`{"error": "model \"x\" not found"}`, 500, `model "x" not found`},
		"message":             {`{"message": "rate limited"}`, 500, "rate limited"},
		"fastapi detail":      {`{"detail": "Not Found"}`, 500, "Not Found"},
		"detail not a string": {`{"detail": [{"loc": ["body"]}]}`, 500, `{"detail": [{"loc": ["body"]}]}`},
		"not json":            {"<html>\n  Bad   gateway\n</html>", 500, "<html> Bad gateway </html>"},
		"empty":               {"", 500, ""},
		"cut":                 {`{"error": "` + strings.Repeat("é", 10) + `"}`, 5, "éé…"},
		"invalid utf-8":       {"bad \xff byte", 500, "bad ? byte"},
		"white space first":   {strings.Repeat(" ", 100) + "x" + strings.Repeat(" ", 100) + "tail", 3, "x t…"},
		// The shapes the servers the agent and the embeddings client speak
		// to answer with, as they send them.
		"openai, full":                 {`{"error": {"message": "The model ` + "`gpt-9`" + ` does not exist", "type": "invalid_request_error", "param": null, "code": "model_not_found"}}`, 500, "The model `gpt-9` does not exist"},
		"ollama, openai route":         {`{"error": {"message": "model \"nope\" not found, try pulling it first", "type": "api_error", "param": null, "code": null}}`, 500, `model "nope" not found, try pulling it first`},
		"llama.cpp":                    {`{"error": {"code": 400, "message": "the request exceeds the available context size", "type": "exceed_context_size_error", "n_prompt_tokens": 9000, "n_ctx": 8192}}`, 500, "the request exceeds the available context size"},
		"llama.cpp, no model":          {`{"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}}`, 500, "Loading model"},
		"vllm":                         {`{"object": "error", "message": "maximum context length is 8192 tokens", "type": "BadRequestError", "param": null, "code": 400}`, 500, "maximum context length is 8192 tokens"},
		"error object without message": {`{"error": {"code": 500}}`, 500, `{"error": {"code": 500}}`},
		"message on several lines":     {`{"error": "line one\n  line two"}`, 500, "line one line two"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := Of([]byte(tc.body), tc.n); got != tc.want {
				t.Errorf("Of(%q, %d) = %q, want %q", tc.body, tc.n, got, tc.want)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		code int
		body string
		n    int
		want string
	}{
		"openai":         {401, `{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}}`, 500, "401 Unauthorized: Incorrect API key provided"},
		"ollama":         {404, `{"error": "model \"x\" not found"}`, 500, `404 Not Found: model "x" not found`},
		"llama.cpp":      {503, `{"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}}`, 500, "503 Service Unavailable: Loading model"},
		"text":           {502, "bad gateway\n", 500, "502 Bad Gateway: bad gateway"},
		"empty body":     {429, "", 500, "429 Too Many Requests"},
		"white space":    {500, " \n ", 500, "500 Internal Server Error"},
		"unknown code":   {599, `{"error": "odd"}`, 500, "599: odd"},
		"cut at n bytes": {400, `{"error": "abcdefgh"}`, 3, "400 Bad Request: abc…"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := Status(tc.code, []byte(tc.body), tc.n); got != tc.want {
				t.Errorf("Status(%d, %q, %d) = %q, want %q", tc.code, tc.body, tc.n, got, tc.want)
			}
		})
	}
}
