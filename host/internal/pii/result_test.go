package pii_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ramabana/ramabana-mcp/host/internal/pii"
	"github.com/ramabana/ramabana-mcp/sdk"
)

func TestFilterPIIStructuredContent(t *testing.T) {
	t.Parallel()
	res := &sdk.Result{
		Content:    []sdk.Content{{Text: "contact: ada@lovelace.dev"}},
		Structured: json.RawMessage(`{"contact":"ada@lovelace.dev","lines":3}`),
	}
	out := pii.FilterResult(pii.ModeRedact, "whois", res)
	var v map[string]any
	if err := json.Unmarshal(out.Structured, &v); err != nil {
		t.Fatalf("redacted structured content is not JSON: %s", out.Structured)
	}
	if v["contact"] != "[REDACTED:email]" || v["lines"] != float64(3) {
		t.Errorf("structured = %s", out.Structured)
	}
	if strings.Contains(string(res.Structured), "REDACTED") || strings.Contains(res.Content[0].Text, "REDACTED") {
		t.Error("the original result was changed in place")
	}
	refused := pii.FilterResult(pii.ModeRefuse, "whois", res)
	if !refused.IsError || !strings.Contains(refused.Text(), "1 e-mail address;") {
		t.Errorf("refusal = %q, want one e-mail address counted once", refused.Text())
	}
}
