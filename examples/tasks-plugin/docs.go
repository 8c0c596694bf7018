package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/ramabana/ramabana-mcp/sdk"
)

type noArgs struct{}

type searchArgs struct {
	Q string `json:"q" jsonschema:"what to look for"`
}

type answerArgs struct {
	Answer string `json:"answer" jsonschema:"the agent's final answer"`
}

// styleSkill is the always-on skill's SKILL.md, checked when the tool is
// declared.
const styleSkill = `---
name: style
description: Prefer short sentences.
---
# Style
Use short sentences.
`

// newDocs declares one tool of each task, each with its helper, which
// sets the task and fixes what the handler returns.
func newDocs() *sdk.Toolbox {
	box := sdk.NewToolbox("docs", sdk.WithVersion("0.1.0"), sdk.WithDescription("Docs: a tool of every agent task."))
	box.AddGroup(sdk.GroupSpec{Name: "docs", Description: "A tool of every agent task."},
		sdk.ContextTool(sdk.ToolSpec{Name: "policies", Description: "Injected into the agent system prompt.", Kind: sdk.KindRead}, policies),
		sdk.ContextTool(sdk.ToolSpec{Name: "ticket", Description: "The open ticket, as a user message.", Kind: sdk.KindRead, AsUserMessage: true}, ticket),
		sdk.TypedTool(sdk.ToolSpec{Name: "search", Description: "Completion tool offered to the model.", Kind: sdk.KindRead}, search),
		sdk.EvaluationTool(sdk.ToolSpec{Name: "grounded", Description: "Judge whether an answer says anything.", Kind: sdk.KindRead}, grounded),
		sdk.PostTool(sdk.ToolSpec{Name: "audit", Description: "Record an answer after the run.", Kind: sdk.KindAct}, audit),
		sdk.SkillText(sdk.ToolSpec{Name: "style", Kind: sdk.KindRead}, sdk.SkillAlwaysOn, styleSkill),
		sdk.NoneTool(sdk.ToolSpec{Name: "ping", Description: "Visible to generic MCP clients; agents ignore none tools.", Kind: sdk.KindRead}, ping),
	)
	return box
}

func policies(context.Context, *sdk.Request, noArgs) (string, error) {
	return "Always cite sources.", nil
}

func ticket(context.Context, *sdk.Request, noArgs) (string, error) {
	return "Ticket #123 is still open.", nil
}

func search(_ context.Context, _ *sdk.Request, args searchArgs) (*sdk.Result, error) {
	return sdk.TextResult("Results for " + args.Q), nil
}

func grounded(_ context.Context, _ *sdk.Request, args answerArgs) (sdk.Evaluation, error) {
	if strings.TrimSpace(args.Answer) == "" {
		return sdk.Invalid(0, "Answer is empty."), nil
	}
	return sdk.Valid(1), nil
}

// audit has only a side effect: a line in the host's log.
func audit(_ context.Context, req *sdk.Request, args answerArgs) error {
	req.Events.Log(sdk.LevelInfo, fmt.Sprintf("audited an answer of %d bytes", len(args.Answer)))
	return nil
}

func ping(context.Context, *sdk.Request, noArgs) (*sdk.Result, error) {
	return sdk.TextResult("pong"), nil
}
