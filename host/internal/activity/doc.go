// Package activity is the host's record of a session: the activity feed
// (every tool call, from an MCP client or from the ask agent, recorded once)
// and the changes ledger (every file those calls changed, with the content
// before the first change and after the latest, for unified diffs).
//
// The host wraps each call it routes:
//
//	p := log.Start(tool, group, activity.Client, args)
//	res, err := source.Call(ctx, ...)
//	p.Finish(res, err)
//
// and serves the in-process "session" group's read tools from [Log.Recent],
// [Log.Changes] and [Log.Diff], rendered with [RenderActivity] and
// [RenderChanges].
//
// Memory is bounded: the feed keeps the newest [Options.MaxRecords] calls,
// and the ledger keeps file contents up to [Options.MaxLedgerBytes], dropping
// the contents of the least recently changed files first (their hashes and
// counts stay, so the ledger still says what changed, without a diff).
//
// A [Log] is safe for concurrent use. It imports nothing from the host.
package activity
