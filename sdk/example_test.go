package sdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strings"

	"github.com/ramabana/ramabana-mcp/sdk"
)

// textArgs are the arguments of both tools; the input schema the model
// sees is inferred from them.
type textArgs struct {
	Text string `json:"text" jsonschema:"the text to look at"`
}

// wordCount is the typed output of count_words; its output schema is
// inferred from it.
type wordCount struct {
	Words  int `json:"words" jsonschema:"how many words the text has"`
	Unique int `json:"unique" jsonschema:"how many of them differ, ignoring case"`
}

// newWords returns the plugin's toolbox. The plugin's main is one call:
//
//	func main() { sdk.Serve(newWords()) }
func newWords() *sdk.Toolbox {
	box := sdk.NewToolbox("words", sdk.WithVersion("0.1.0"), sdk.WithDescription("Look at the words of a text."))
	box.AddGroup(sdk.GroupSpec{Name: "words", Description: "Shout a text, count its words."},
		sdk.TypedTool(sdk.ToolSpec{Name: "shout", Description: "Repeat a text in capitals.", Kind: sdk.KindRead}, shout),
		sdk.TypedTool(sdk.ToolSpec{Name: "count_words", Description: "Count the words of a text.", Kind: sdk.KindRead}, countWords),
	)
	return box
}

// shout builds its own result.
func shout(_ context.Context, _ *sdk.Request, args textArgs) (*sdk.Result, error) {
	if args.Text == "" {
		return nil, sdk.Failf("text is empty: give the text to shout")
	}
	return sdk.TextResult(strings.ToUpper(args.Text)), nil
}

// countWords returns a typed output, which the model gets as structured
// content and as text.
func countWords(_ context.Context, _ *sdk.Request, args textArgs) (wordCount, error) {
	words := strings.Fields(args.Text)
	if len(words) == 0 {
		return wordCount{}, sdk.Failf("text has no words: give the text to count")
	}
	unique := map[string]bool{}
	for _, w := range words {
		unique[strings.ToLower(w)] = true
	}
	return wordCount{Words: len(words), Unique: len(unique)}, nil
}

// A complete plugin with a tool that takes typed arguments and one that
// also returns a typed output, called as the host calls it: through the
// sdk.Group interface, which sdk.Serve serves over gRPC.
func Example() {
	var g sdk.Group = newWords()
	ctx := context.Background()
	d, err := g.Describe(ctx, sdk.Host{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Name, d.Version)
	for _, t := range d.Groups[0].Tools {
		fmt.Println("tool", t.Name, "takes", string(t.InputSchema))
		if len(t.OutputSchema) > 0 {
			fmt.Println("tool", t.Name, "returns", string(t.OutputSchema))
		}
	}
	for _, call := range []sdk.Call{
		{Tool: "shout", Arguments: json.RawMessage(`{"text":"hello"}`)},
		{Tool: "count_words", Arguments: json.RawMessage(`{"text":"To be or not to be"}`)},
		{Tool: "count_words", Arguments: json.RawMessage(`{"text":" "}`)},
	} {
		res, err := g.Call(ctx, &call, sdk.NoEvents)
		if err != nil {
			log.Fatal(err) // a fault, not a failure the model can act on
		}
		switch {
		case res.IsError:
			fmt.Println(call.Tool, "failed:", res.Text())
		case res.Structured != nil:
			fmt.Println(call.Tool, "structured:", string(res.Structured), "text:", res.Text())
		default:
			fmt.Println(call.Tool, "text:", res.Text())
		}
	}
	// Output:
	// words 0.1.0
	// tool shout takes {"type":"object","properties":{"text":{"type":"string","description":"the text to look at"}},"required":["text"],"additionalProperties":false}
	// tool count_words takes {"type":"object","properties":{"text":{"type":"string","description":"the text to look at"}},"required":["text"],"additionalProperties":false}
	// tool count_words returns {"type":"object","properties":{"words":{"type":"integer","description":"how many words the text has"},"unique":{"type":"integer","description":"how many of them differ, ignoring case"}},"required":["words","unique"],"additionalProperties":false}
	// shout text: HELLO
	// count_words structured: {"words":6,"unique":4} text: {"words":6,"unique":4}
	// count_words failed: text has no words: give the text to count
}
