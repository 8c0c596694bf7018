package search

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestWords(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in   string
		want []string
	}{
		"snake":          {"github__create_issue", []string{"github", "create", "issue"}},
		"camel":          {"createIssue", []string{"createissue", "create", "issue"}},
		"acronym":        {"getHTTPResponse", []string{"gethttpresponse", "get", "http", "response"}},
		"plural acronym": {"listPRs", []string{"listprs", "list", "prs"}},
		"digits":         {"s3_put_object2", []string{"s3", "s", "3", "put", "object2", "object", "2"}},
		"separators":     {"a-b.c/d e", []string{"a", "b", "c", "d", "e"}},
		"unicode":        {"Größe ändern, 日本語", []string{"größe", "ändern", "日本語"}},
		"brand":          {"GitHub", []string{"github", "git", "hub"}},
		"punctuation":    {"???", nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, words(tc.in), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("words(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestStemJoinsForms(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		"creat":     {"create", "creates", "created", "creating", "creation"},
		"delet":     {"delete", "deleted", "deleting", "deletion", "deletes"},
		"issu":      {"issue", "issues"},
		"queri":     {"query", "queries", "queried", "querying"},
		"directori": {"directory", "directories"},
		"run":       {"run", "runs", "running", "ran"},
		"commit":    {"commit", "commits", "committed", "committing"},
		"search":    {"search", "searches", "searching", "searched"},
		"branch":    {"branch", "branches"},
		"brows":     {"browse", "browser", "browsing", "browsers"},
		"fil":       {"file", "files", "filed"},
		"add":       {"add", "added", "adding", "adds"},
		"pull":      {"pull", "pulls", "pulled", "pulling"},
		"process":   {"process", "processes", "processing"},
		"organiz":   {"organize", "organization", "organizing"},
		"use":       {"use", "used", "uses", "using"},
		"writ":      {"write", "writes", "writing", "written", "wrote"},
		"http":      {"http", "https"},
		"server":    {"server", "servers"},
		"alias":     {"alias", "aliases"},
		"status":    {"status"},
		"string":    {"string", "strings"},
		"get":       {"get", "gets", "getting"},
	}
	for want, forms := range tests {
		for _, w := range forms {
			if got := stem(w); got != want {
				t.Errorf("stem(%q) = %q, want %q", w, got, want)
			}
		}
	}
}

func TestStemLeavesAlone(t *testing.T) {
	t.Parallel()
	for _, w := range []string{"git", "pr", "s3", "ec2", "größe", "日本語", "is", "bus", "need", "serve"} {
		if got := stem(w); got != w && !(w == "serve" && got == "serv") {
			t.Errorf("stem(%q) = %q, want it unchanged", w, got)
		}
	}
	if stem("serve") == stem("server") {
		t.Errorf("serve and server share stem %q", stem("server"))
	}
}

func TestTermsDropStopWords(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in   string
		want []string
	}{
		"stop words": {"How do I get the list of all files in my repo?", []string{"get", "list", "fil", "repo"}},
		"verbs kept": {"create read write delete search", []string{"creat", "read", "writ", "delet", "search"}},
		"only stop":  {"the of", nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, terms(tc.in), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("terms(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestAnalyzeQuerySynonyms(t *testing.T) {
	t.Parallel()
	got := map[string]float64{}
	for _, qt := range analyzeQuery("open pull request") {
		got[qt.term] = qt.weight
	}
	for term, want := range map[string]float64{"open": 1, "pull": 1, "request": 1, "pr": 0.5, "view": 0.5, "merg": 0.5} {
		if got[term] != want {
			t.Errorf("weight of %q = %v, want %v (all: %v)", term, got[term], want, got)
		}
	}
}
