package search

import (
	"slices"
	"sync"
)

// synonymWeight is how much a word found through a synonym counts against
// one the query wrote: enough to find a tool described in other words, not
// enough to outrank one described in the query's.
const synonymWeight = 0.5

// synonymGroups are words and phrases that ask for the same thing of a
// tool. A query word or phrase in a group adds the group's others.
// Groups are narrow on purpose: "save" is not "commit", "run" is not
// "start a server".
var synonymGroups = [][]string{
	{"find", "search", "lookup", "look up", "query", "locate", "grep"},
	{"remove", "delete", "erase", "rm", "del", "destroy", "drop", "discard"},
	{"make", "create", "new", "add", "insert"},
	{"show", "view", "read", "get", "fetch", "open", "display", "cat", "retrieve", "print", "see", "look at", "inspect"},
	{"change", "edit", "modify", "update", "alter", "patch", "amend"},
	{"folder", "directory", "dir"},
	{"file", "document"},
	{"run", "execute", "exec", "invoke", "launch"},
	{"issue", "ticket", "bug"},
	{"pr", "pull request", "merge request", "mr"},
	{"repo", "repository"},
	{"web", "internet", "online", "website"},
	{"url", "link", "page", "site", "webpage", "website"},
	{"image", "picture", "photo", "img", "pic"},
	{"list", "enumerate", "ls"},
	{"message", "msg", "dm"},
	{"send", "post"},
	{"email", "mail", "e-mail"},
	{"download", "fetch", "scrape"},
	{"navigate", "visit", "go to", "browse", "goto"},
	{"click", "press", "tap"},
	{"type", "enter", "input", "fill"},
	{"database", "db"},
	{"sql", "query"},
	{"rename", "move", "mv"},
	{"copy", "duplicate", "cp", "clone"},
	{"event", "meeting", "appointment", "calendar"},
	{"user", "person", "member", "account", "people"},
	{"history", "log"},
	{"diff", "changes", "compare"},
	{"function", "method", "symbol", "definition"},
	{"content", "contents", "text"},
	{"kill", "stop", "terminate", "cancel", "abort"},
	{"error", "exception", "failure", "crash"},
	{"shell", "terminal", "command", "cmd", "bash", "console"},
	{"note", "memo"},
	{"save", "write", "store"},
	{"replace", "substitute", "overwrite"},
	{"upload", "attach"},
	{"comment", "reply", "respond"},
	{"tag", "label"},
	{"notify", "notification", "alert"},
	{"summary", "summarize", "tldr"},
	{"screenshot", "capture", "snapshot"},
	{"table", "tables", "schema"},
	{"memory", "remember", "recall"},
	{"documentation", "docs", "manual", "reference"},
	{"weather", "forecast", "temperature"},
	{"star", "favorite", "bookmark"},
	{"multiple", "several", "many", "batch", "bulk"},
	{"current", "active", "present"},
	{"status", "state", "health"},
	{"open", "create", "start"},
	{"start", "begin", "launch", "spin up", "boot"},
	{"upload", "put"},
	{"javascript", "js", "script"},
	{"evaluate", "eval"},
	{"column", "field", "attribute", "property"},
	{"row", "record", "entry"},
	{"describe", "schema", "structure"},
	{"price", "quote", "cost", "worth", "value"},
	{"stock", "share", "ticker", "equity"},
	{"currency", "money", "forex", "fx"},
	{"translate", "translation", "language"},
	{"directions", "route", "driving", "travel"},
	{"location", "place", "address", "position", "coordinates"},
	{"latitude", "lat"},
	{"longitude", "lng", "lon"},
	{"elevation", "altitude", "height"},
	{"timezone", "time zone", "tz"},
	{"schedule", "book", "reserve"},
	{"available", "availability", "free", "busy"},
	{"agenda", "schedule", "upcoming"},
	{"message", "chat", "conversation", "thread"},
	{"channel", "room"},
	{"sms", "text message", "texting"},
	{"phone", "mobile", "cell"},
	{"verify", "verification", "2fa", "otp", "one-time code"},
	{"invoice", "bill", "billing"},
	{"payment", "charge", "pay", "checkout"},
	{"subscription", "plan", "recurring"},
	{"refund", "reimburse"},
	{"discount", "coupon", "promo", "voucher"},
	{"customer", "client", "buyer"},
	{"balance", "funds"},
	{"contact", "lead"},
	{"company", "organization", "org"},
	{"deal", "opportunity"},
	{"generate", "draw", "paint", "illustrate"},
	{"resize", "shrink", "enlarge", "scale"},
	{"ocr", "recognize", "scan", "scanned"},
	{"convert", "transform"},
	{"merge", "combine", "join", "concatenate", "land", "squash"},
	{"split", "divide", "separate"},
	{"compress", "zip", "gzip", "archive"},
	{"process", "program", "pid"},
	{"disk", "storage", "space"},
	{"output", "stdout", "logs"},
	{"deploy", "release", "rollout", "ship"},
	{"rollback", "revert", "undo"},
	{"replica", "replicas", "instances"},
	{"forward", "tunnel", "expose"},
	{"secret", "credential", "password", "token"},
	{"permission", "access", "share", "grant", "role"},
	{"login", "log in", "sign in", "authenticate", "auth"},
	{"identity", "whoami", "self", "viewer", "profile"},
	{"quota", "rate limit", "usage"},
	{"cycle", "sprint", "iteration"},
	{"priority", "urgency", "severity"},
	{"assign", "assignee", "owner"},
	{"subtask", "sub-issue", "child", "parent"},
	{"wiki", "page", "doc"},
	{"block", "paragraph", "section"},
	{"spreadsheet", "sheet", "workbook", "excel"},
	{"chart", "graph", "plot", "visualize"},
	{"aggregate", "group by", "total", "sum", "statistics", "stats"},
	{"count", "tally", "number of"},
	{"explain", "analyze", "performance", "slow"},
	{"drop", "wipe", "purge", "truncate", "clear", "nuke"},
	{"cache", "key-value", "kv"},
	{"similar", "semantic", "vector", "embedding", "nearest"},
	{"news", "headlines", "stories", "articles"},
	{"article", "post", "story"},
	{"history", "past", "previous", "earlier"},
	{"alert", "warning"},
	{"dialog", "popup", "modal", "prompt"},
	{"tab", "window"},
	{"network", "request", "requests", "traffic", "xhr", "http"},
	{"console", "devtools"},
	{"hover", "mouse over"},
	{"select", "choose", "pick", "dropdown", "option"},
	{"wait", "pause", "sleep", "delay"},
	{"crawl", "spider", "scrape"},
	{"extract", "parse", "pull out"},
	{"library", "package", "dependency", "module", "sdk"},
	{"build", "pipeline", "ci", "workflow"},
	{"flaky", "intermittent", "unstable"},
	{"test", "spec", "specs"},
	{"review", "approve", "lgtm"},
	{"copy", "fork"},
	{"close", "resolve", "complete", "finish", "done"},
	{"attachment", "attached"},
	{"draft", "compose", "prepare"},
	{"email", "inbox", "mailbox"},
	{"unread", "unopened", "unseen"},
	{"filter", "rule"},
	{"size", "bytes", "large", "big"},
	{"info", "information", "metadata", "details", "properties"},
	{"tree", "hierarchy", "nested"},
	{"allowed", "permitted", "accessible"},
	{"config", "configuration", "preferences", "options"},
	{"environment", "env", "variables"},
	{"place", "venue", "business", "shop", "restaurant"},
	{"reviews", "ratings"},
	{"pollution", "aqi", "air quality"},
}

// phrase is a synonym's terms, in order.
type phrase []string

// synonyms is synonymGroups analysed: each group's phrases as terms. It is
// analysed at the first query, not at init: every process of the server's
// binary links this package, and most never search.
var synonyms = sync.OnceValue(func() [][]phrase {
	groups := make([][]phrase, 0, len(synonymGroups))
	for _, g := range synonymGroups {
		var ps []phrase
		for _, s := range g {
			if t := terms(s); len(t) > 0 && !slices.ContainsFunc(ps, func(p phrase) bool { return slices.Equal(p, t) }) {
				ps = append(ps, t)
			}
		}
		groups = append(groups, ps)
	}
	return groups
})

// queryTerm is one term of an analysed query and what it counts.
type queryTerm struct {
	term   string
	weight float64
}

// analyzeQuery returns the query's terms, each once with weight 1, then the
// terms its synonyms add with synonymWeight, in a stable order.
func analyzeQuery(q string) []queryTerm {
	ts := terms(q)
	weight := make(map[string]float64, len(ts))
	var out []queryTerm
	add := func(t string, w float64) {
		if old, ok := weight[t]; ok {
			if w > old {
				weight[t] = w
			}
			return
		}
		weight[t] = w
		out = append(out, queryTerm{t, w})
	}
	for _, t := range ts {
		add(t, 1)
	}
	for _, g := range synonyms() {
		if !slices.ContainsFunc(g, func(p phrase) bool { return containsPhrase(ts, p) }) {
			continue
		}
		for _, p := range g {
			for _, t := range p {
				add(t, synonymWeight)
			}
		}
	}
	for i := range out {
		out[i].weight = weight[out[i].term]
	}
	return out
}

func containsPhrase(ts []string, p phrase) bool {
	for i := 0; i+len(p) <= len(ts); i++ {
		if slices.Equal(ts[i:i+len(p)], p) {
			return true
		}
	}
	return false
}
