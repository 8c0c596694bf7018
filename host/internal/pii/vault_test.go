package pii_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/ramabana/ramabana-mcp/host/internal/pii"
	"github.com/ramabana/ramabana-mcp/host/internal/vault/vaulttest"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// TestVaultFilter: with a vault, findings become stable placeholders in
// both modes, text shaped like a placeholder is hidden behind one of its
// own (and comes back as that text), and a filter told the text was
// filtered already keeps the vault's placeholders.
func TestVaultFilter(t *testing.T) {
	v := vaulttest.Open(t)
	text := "jane@acme.io wrote to bob@corp.org, then jane@acme.io again; see ⟦email:1⟧ and ⟦email:0⟧"
	for _, mode := range []pii.Mode{pii.ModeRedact, pii.ModeRefuse} {
		f := pii.Filter{Mode: mode, Vault: v}
		res := f.Result("view_file", &sdk.Result{
			Content:    []sdk.Content{{Text: text}},
			Structured: json.RawMessage(`{"from":"jane@acme.io"}`),
		})
		want := "⟦email:1⟧ wrote to ⟦email:2⟧, then ⟦email:1⟧ again; see ⟦literal:1⟧ and ⟦email:0⟧"
		if res.IsError || res.Text() != want {
			t.Errorf("%v: %q (error %v), want %q", mode, res.Text(), res.IsError, want)
		}
		if string(res.Structured) != `{"from":"⟦email:1⟧"}` {
			t.Errorf("%v: structured %s", mode, res.Structured)
		}
	}
	back, err := v.Reveal("⟦email:1⟧ ⟦literal:1⟧")
	if err != nil || back != "jane@acme.io ⟦email:1⟧" {
		t.Errorf("Reveal = %q, %v; the literal must come back as the text it hid", back, err)
	}
	kept, _ := pii.Filter{Mode: pii.ModeRedact, Vault: v, KeepPlaceholders: true}.Redact("answer: ⟦email:2⟧ wrote to eve@corp.org")
	if kept != "answer: ⟦email:2⟧ wrote to ⟦email:3⟧" {
		t.Errorf("KeepPlaceholders: %q", kept)
	}
	// Without a vault, placeholder-shaped text is nobody's business.
	plain, _ := pii.Filter{Mode: pii.ModeRedact}.Redact("⟦email:1⟧ and jane@acme.io")
	if plain != "⟦email:1⟧ and [REDACTED:email]" {
		t.Errorf("no vault: %q", plain)
	}
}

// TestVaultFailureRedacts: a vault that cannot keep a value leaves the
// value out all the same.
func TestVaultFailureRedacts(t *testing.T) {
	v := vaulttest.Open(t)
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	out, _ := pii.Filter{Mode: pii.ModeRedact, Vault: v}.Redact("mail jane@acme.io")
	if out != "mail [REDACTED:email]" {
		t.Errorf("closed vault: %q", out)
	}
}

// TestErrorResultsAreRedacted: an error result is redacted in both modes,
// never withheld nor passed through.
func TestErrorResultsAreRedacted(t *testing.T) {
	for _, mode := range []pii.Mode{pii.ModeRedact, pii.ModeRefuse} {
		res := pii.Filter{Mode: mode}.Result("edit_file", &sdk.Result{IsError: true, Content: []sdk.Content{{Text: "line 2 reads \"mail jane@acme.io\", not what you gave"}}})
		if !res.IsError || res.Text() != "line 2 reads \"mail [REDACTED:email]\", not what you gave" {
			t.Errorf("%v: %q", mode, res.Text())
		}
	}
}

func TestLogHandler(t *testing.T) {
	v := vaulttest.Open(t)
	var buf bytes.Buffer
	log := slog.New(pii.Filter{Mode: pii.ModeRedact, Vault: v}.Handler(slog.NewTextHandler(&buf, nil)))
	log = log.With("user", "jane@acme.io")
	log.WithGroup("call").Info("sent to bob@corp.org", "to", "bob@corp.org", "error", errString("dial jane@acme.io: refused"),
		slog.Group("args", "card", "4111 1111 1111 1111"), "n", 3)
	out := buf.String()
	for _, leak := range []string{"jane@acme.io", "bob@corp.org", "4111"} {
		if strings.Contains(out, leak) {
			t.Errorf("log holds %q:\n%s", leak, out)
		}
	}
	for _, want := range []string{`msg="sent to ⟦email:2⟧"`, "user=⟦email:1⟧", "call.to=⟦email:2⟧", `call.error="dial ⟦email:1⟧: refused"`, "call.args.card=⟦card:1⟧", "call.n=3"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s:\n%s", want, out)
		}
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// TestWriter: a value split across writes is still found; what is held
// back is written at Close.
func TestWriter(t *testing.T) {
	var buf bytes.Buffer
	w := pii.Filter{Mode: pii.ModeRedact}.Writer(&buf)
	for _, chunk := range []string{"connecting as jane@ac", "me.io\nretry ", "for bob@corp.org"} {
		if n, err := w.Write([]byte(chunk)); err != nil || n != len(chunk) {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if got := buf.String(); got != "connecting as [REDACTED:email]\n" {
		t.Errorf("before Close: %q", got)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "connecting as [REDACTED:email]\nretry for [REDACTED:email]" {
		t.Errorf("after Close: %q", got)
	}

	// A line that never ends is written in pieces, none of which cuts a
	// value in two, wherever the writes fall.
	buf.Reset()
	w = pii.Filter{Mode: pii.ModeRedact}.Writer(&buf)
	line := strings.Repeat("x", 64<<10-4<<10-8) + " carol@bigbank.io " + strings.Repeat("y", 8<<10)
	for i := 0; i < len(line); i += 1000 {
		if _, err := w.Write([]byte(line[i:min(i+1000, len(line))])); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); strings.Contains(got, "carol") || got != strings.Replace(line, "carol@bigbank.io", "[REDACTED:email]", 1) {
		t.Errorf("a long line came out with %d bytes, holding the address: %v", len(got), strings.Contains(got, "carol"))
	}
}

// TestStructuredNumbersAndURIs: a card number sent as a JSON number and an
// address in a resource's URI are filtered too.
func TestStructuredNumbersAndURIs(t *testing.T) {
	res := pii.Filter{Mode: pii.ModeRedact}.Result("lookup", &sdk.Result{
		Content:    []sdk.Content{{Resource: &sdk.Resource{URI: "mailto:carol@bigbank.io", Text: "hi"}}},
		Structured: json.RawMessage(`{"card":4111111111111111,"count":3,"ratio":0.25}`),
	})
	if string(res.Structured) != `{"card":"[REDACTED:card]","count":3,"ratio":0.25}` {
		t.Errorf("structured: %s", res.Structured)
	}
	if uri := res.Content[0].Resource.URI; uri != "mailto:[REDACTED:email]" {
		t.Errorf("resource URI: %s", uri)
	}
}
