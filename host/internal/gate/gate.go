// Package gate is the server's one outbound gate for --pii and --vault:
// every message the server sends a client and every request the ask agent
// sends its model leaves through it, filtered by one [pii.Filter] built
// once ([New]).
//
// The rule it keeps is simple to state and to check: inside the server,
// data is what it is (values, not placeholders); at the edge, each text is
// redacted, or with a vault each value is shown as its stable placeholder,
// and text shaped like a placeholder is hidden behind one of its own. The
// edges are:
//
//   - the MCP edge ([Gate.Receiving] and [Gate.Sending], middleware of the
//     go-sdk server): every result the server answers and its error, and
//     every notification or request it sends of its own accord, whatever
//     its kind (tool results, tool lists, resources, prompts, completions,
//     instructions, progress, logging). Every string of the message is
//     filtered, an embedded resource's blob too when it reads as text;
//     see [Kinds] for the messages there are;
//   - the model edge ([Gate.Backend]): each request of the ask agent, its
//     system prompt, the task, the tool list and the tool results alike;
//   - the log ([Gate.Filter]'s Handler and Writer, set up by the server).
//
// Only one decision is taken inside, on the call path, because it needs
// the tool: under --pii refuse a read tool's (or an upstream server's)
// result that holds a finding is withheld whole ([Gate.Withhold]), for
// the client and the agent alike. Placeholders come in only in what a
// model writes; the call path turns them back into values for the tools
// that may have them, and the ask agent's answer is turned back before it
// leaves ([Gate.Inward]), so that the edge shows it with the same
// placeholders the agent's model saw.
//
// A nil *Gate, or one built with pii.ModeOff, passes everything as it is
// and costs nothing.
package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/ramabana/ramabana-mcp/host/internal/pii"
	"github.com/ramabana/ramabana-mcp/host/internal/vault"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// Gate is the outbound filter as configured. It is safe for concurrent
// use.
type Gate struct {
	f     pii.Filter
	vault *vault.Vault
}

// New builds the gate: mode is --pii, names --pii-ner, v the vault of
// --vault (nil: none).
func New(mode pii.Mode, names bool, v *vault.Vault) *Gate {
	g := &Gate{f: pii.Filter{Mode: mode, Names: names}, vault: v}
	if v != nil {
		g.f.Vault = v
	}
	return g
}

// On says whether the gate filters anything (--pii is not off).
func (g *Gate) On() bool { return g != nil && g.f.Mode != pii.ModeOff }

// Mode is --pii's mode.
func (g *Gate) Mode() pii.Mode {
	if g == nil {
		return pii.ModeOff
	}
	return g.f.Mode
}

// Names says whether personal names are filtered (--pii-ner).
func (g *Gate) Names() bool { return g != nil && g.f.Names }

// Vault is the vault, nil without --vault.
func (g *Gate) Vault() *vault.Vault {
	if g == nil {
		return nil
	}
	return g.vault
}

// Filter is the gate's filter, for the edges the server sets up itself
// (its log: pii.Filter.Handler and Writer).
func (g *Gate) Filter() pii.Filter {
	if g == nil {
		return pii.Filter{}
	}
	return g.f
}

// Text is s as it may leave: redacted, or with placeholders.
func (g *Gate) Text(s string) string {
	if !g.On() {
		return s
	}
	out, _ := filterText(g.f, s)
	return out
}

// Error is err as it may leave: its text filtered, still matching what it
// wraps (errors.Is and errors.As, which keep a JSON-RPC error's code).
func (g *Gate) Error(err error) error {
	if err == nil || !g.On() {
		return err
	}
	if wire, ok := err.(*jsonrpc.Error); ok {
		// Sent as it is, its data too (a wrapped one is sent with the
		// outer error's text, its data dropped).
		out := *wire
		out.Message = g.Text(wire.Message)
		if len(wire.Data) > 0 {
			w := &walker{f: g.f}
			if v, ch := w.rawJSON(reflect.ValueOf(wire.Data)); ch {
				out.Data = v.Interface().(json.RawMessage)
			}
		}
		if out.Message == wire.Message && bytes.Equal(out.Data, wire.Data) {
			return err
		}
		return &out
	}
	msg := err.Error()
	if out := g.Text(msg); out != msg {
		return &filteredError{msg: out, err: err}
	}
	return err
}

// filteredError is an error whose text went through the gate.
type filteredError struct {
	msg string
	err error
}

func (e *filteredError) Error() string { return e.msg }
func (e *filteredError) Unwrap() error { return e.err }

// Withhold is --pii refuse's one decision, taken on the call path: the
// refusal that stands for res when it must be withheld whole, else nil
// (res goes on, and the edge redacts it). A result is withheld when the
// mode is refuse without a vault, withholdable says the tool's result may
// be (a read tool's, or an upstream server's: the call path knows), it is
// not an error (an error is redacted, never withheld), and some text of
// it holds a finding.
func (g *Gate) Withhold(tool string, withholdable bool, res *sdk.Result) *sdk.Result {
	if !withholdable || res == nil || res.IsError || g.Mode() != pii.ModeRefuse || g.vault != nil {
		return nil
	}
	// Filter.Result in refuse mode without a vault returns res itself
	// when nothing is found, and the refusal when something is.
	if out := g.f.Result(tool, res); out != res {
		return out
	}
	return nil
}

// Inward turns a model's own text back into what it stands for, for the
// text to take the way of every other inside the server: each placeholder
// the vault gave out becomes its value (the edge shows it as the same
// placeholder again); any other text stays as it is. Without a vault, s
// is returned as it is.
func (g *Gate) Inward(s string) string {
	if g.Vault() == nil {
		return s
	}
	out, err := g.vault.RevealKnown(s)
	if err != nil {
		return s // the edge hides placeholder-shaped text that stays
	}
	return out
}

// ErrUnfiltered is the error of a message the gate could not filter: it
// is refused rather than sent unfiltered.
var ErrUnfiltered = errors.New("the server's outbound filter (--pii) could not filter this message, so it is not sent")

// InwardJSON is Inward for a call's JSON arguments, each value escaped for
// a JSON string (see vault.Vault.RevealKnownJSON).
func (g *Gate) InwardJSON(args json.RawMessage) json.RawMessage {
	if g.Vault() == nil {
		return args
	}
	out, err := g.vault.RevealKnownJSON(args)
	if err != nil {
		return args
	}
	return out
}

// OutwardJSON is what a tool that may not have the vault's values (a third
// party's plugin, an upstream server, an act tool: see hub's call path) is
// handed of a call's JSON arguments: each value the vault keeps, wherever
// it occurs in a string, becomes its placeholder, as it would leave the
// server for a model. Inside the server the values are what they are: an
// ask turn's task, which came in with its placeholders turned back into
// values, reaches the turn's context and post tools so. Without a vault,
// args as they are.
func (g *Gate) OutwardJSON(args json.RawMessage) json.RawMessage {
	if g.Vault() == nil || len(args) == 0 {
		return args
	}
	f := pii.Filter{Mode: pii.ModeRedact, Vault: g.vault, OnlyKnown: true}
	out, found, ok := f.JSON(args)
	if !ok || found == 0 {
		return args
	}
	return out
}
