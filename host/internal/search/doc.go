// Package search ranks tools for a query: BM25F over each tool's name,
// server, title, description and input parameters, with light English
// stemming, a stop list and a small table of synonyms for the words people
// use about tools, so that "open a folder" finds list_directory.
//
// An Index holds the tools of many sources (a plugin, an upstream server),
// each replaced whole with Set or dropped with Remove; both update the
// inverted index in place, so a server relisting its tools costs what its
// tools cost, not the whole catalog.
//
//	ix := search.New()
//	ix.Set("github", []search.Doc{{Name: "github__create_issue", Server: "github", ...}})
//	hits, err := ix.Search("open a ticket", 5, nil)
//
// Naive is plain single-field BM25, the baseline evaluations compare with.
package search
