package memory

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/sdktest"
)

// benchVocabulary returns the words of the generated memories, most
// frequent first: English function words, a technical vocabulary, then
// made-up words for the long tail of names a real store holds.
func benchVocabulary(r *rand.Rand) []string {
	words := strings.Fields(`the a to of and in is for with on it use run we that by not be
		from when test build deploy config error file should always never user prefers
		database migration schema index query cache server client request response timeout retry
		docker kubernetes helm terraform ansible nginx postgres redis kafka rabbitmq grpc protobuf
		python golang rust typescript javascript react vue svelte webpack vite eslint prettier
		pytest unittest benchmark profile flamegraph latency throughput memory leak goroutine
		channel mutex deadlock race condition panic wrap sentinel logging tracing metrics
		prometheus grafana alert oncall runbook incident postmortem release changelog semver tag
		branch rebase merge squash review approve lint format vet staticcheck coverage fixture
		golden snapshot mock fake stub integration endtoend smoke canary rollback feature flag`)
	syllables := strings.Fields("ka lo mi ne ru sa ti vo ze xu bra cle dri fro glu pla sto tre")
	for range 5000 {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(syllables[r.IntN(len(syllables))])
		}
		words = append(words, b.String())
	}
	return words
}

// seed stores n generated memories under the config dir cfg, tagged and
// scoped like real ones, in one transaction. Word frequencies follow Zipf's
// law, as in text.
func seed(tb testing.TB, cfg, project string, n int) {
	tb.Helper()
	s, err := openStore(context.Background(), dbPath(cfg))
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	r := rand.New(rand.NewPCG(1, 2))
	vocab := benchVocabulary(r)
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(vocab)-1))
	now := time.Now()
	err = s.Write(context.Background(), func(tx *sql.Tx) error {
		for i := range n {
			words := make([]string, 8+r.IntN(50))
			for j := range words {
				words[j] = vocab[zipf.Uint64()]
			}
			tags := []string{vocab[20+r.IntN(100)]}
			scope := project
			if i%5 == 0 {
				scope = scopeGlobal
			}
			content := fmt.Sprintf("%s (note %d)", strings.Join(words, " "), i)
			if _, err := addTx(context.Background(), tx, content, tags, scope, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkRecall searches 10,000 memories: through the store, and through
// the recall tool over gRPC as the host calls it.
func BenchmarkRecall(b *testing.B) {
	cfg := b.TempDir()
	project := filepath.Join(b.TempDir(), "proj")
	seed(b, cfg, project, 10000)
	s, err := openStore(context.Background(), dbPath(cfg))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	queries := map[string]string{
		"common word":  "the",
		"rare words":   "flamegraph deadlock",
		"prefixes":     "kube terra",
		"natural":      "how do we deploy the postgres migration with docker",
		"no stopwords": "deploy postgres migration docker",
		"no match":     "zyzzyva",
		"with syntax":  `"deploy" AND NEAR(config*) -rollback`,
		"many matches": "run test build deploy config",
	}
	for name, q := range queries {
		b.Run("store/"+name, func(b *testing.B) {
			words := queryWords(q)
			f := filter{Scopes: []string{project, scopeGlobal}}
			for b.Loop() {
				if _, err := s.search(context.Background(), words, f, defaultRecallLimit); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	g, _ := sdktest.Connect(b, New(), sdk.Host{ConfigDir: cfg})
	for _, name := range []string{"rare words", "natural"} {
		b.Run("tool/"+name, func(b *testing.B) {
			args := fmt.Appendf(nil, `{"query": %q, "scope": "all"}`, queries[name])
			for b.Loop() {
				res, err := g.Call(context.Background(), &sdk.Call{Tool: "recall", Arguments: args}, nil)
				if err != nil || res.IsError {
					b.Fatalf("recall: %v %v", err, res)
				}
			}
		})
	}
}

// BenchmarkRemember stores one memory per call through the tool, each a
// transaction fsynced at commit.
func BenchmarkRemember(b *testing.B) {
	cfg := b.TempDir()
	g, _ := sdktest.Connect(b, New(), sdk.Host{ConfigDir: cfg})
	i := 0
	for b.Loop() {
		i++
		args := fmt.Appendf(nil, `{"content": "benchmark memory %d about deploys and configs", "tags": ["bench"]}`, i)
		res, err := g.Call(context.Background(), &sdk.Call{Tool: "remember", Arguments: args}, nil)
		if err != nil || res.IsError {
			b.Fatalf("remember: %v %v", err, res)
		}
	}
}
