// Package agent is the ask agent: it runs one whole turn for a task (send
// the conversation and the tools to a model, run the tool calls it asks for,
// feed the results back, stop at its final answer or at a step limit) and
// returns one answer.
//
// The agent knows nothing of the host. It depends on four small interfaces
// the host implements:
//
//   - [Toolset] is the host's catalog. Every call the agent makes goes
//     through Toolset.Call, the host's one call path, so it lands in the
//     activity feed and the changes ledger like a client's call, and the
//     descriptions the model reads are the catalog's own. There is no
//     approval gate; the agent sorts tools only by their agent task
//     (docs/agent-tasks.md, [Tool].Task): the model is offered the
//     completion tools, context tools build the prompt before the first
//     step, post tools then evaluation tools take each answer (a verdict
//     that is not valid sends its feedback back, for at most
//     Config.MaxRetries more attempts), and skill and none tools are never
//     offered. A stage tool gets the task and the answer only in properties
//     named for them; one that requires anything else is skipped.
//   - [Skills] is the skill library (skill files and skill tools alike):
//     always-on skills are injected with the context, the others listed in
//     the system prompt and loaded with the built-in read_skill tool.
//   - [Connector] is one turn's view of the upstream MCP servers. When one
//     with servers is given, the model gets the built-in mcp_connect tool and
//     an <available_mcps> block in its system prompt; connecting adds the
//     server's tools (named <id>__<tool>) from the next step on. A Connector
//     is the turn's own activation set: nothing is shared between turns.
//   - [Backend] is the model: [NewOpenAI] for any OpenAI-compatible chat
//     completions server (OpenAI, Ollama, llama.cpp's server, vLLM), and
//     [NewScripted] for tests.
//
// A host mounts the agent as its ask tool like this:
//
//	ag := agent.New(agent.Config{
//		Backend: agent.NewOpenAI(agent.OpenAIConfig{BaseURL: url, APIKey: key, Model: model}),
//		Model:   model,
//		Tools:   catalog, // implements agent.Toolset
//	})
//	out, err := ag.Run(ctx, task, agent.RunOptions{
//		Connector: upstreams.NewConnector(), // fresh per turn; Run closes it
//		Progress:  func(n int, msg string) { notify(n, msg) },
//	})
//
// Run is synchronous and starts no goroutines; cancelling ctx cancels the
// backend request or tool call in flight and Run returns ctx.Err(). An Agent
// is safe for concurrent Runs, which share nothing but the Status counters.
//
// Long turns are compacted before each model call once the conversation's
// size passes Config.ContextBudget: older tool results become short stubs
// first, then the oldest whole exchanges (an assistant message with its tool
// results, never one without the other) are dropped.
package agent
