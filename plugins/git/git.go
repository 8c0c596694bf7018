package git

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// Version is the plugin's version, sent in Describe.
const Version = "0.1.0"

// New returns the git plugin, ready for sdk.Serve.
func New() *sdk.Toolbox {
	s := &server{}
	box := sdk.NewToolbox("git", sdk.WithVersion(Version),
		sdk.WithDescription("Read and change git repositories in the served folders with the git binary."))
	box.AddGroup(sdk.GroupSpec{
		Name:        "git",
		Description: "git status, diff, log, show and blame; add, commit, branch and checkout. Paths are confined to the repository and the served folders; no argument can become a git option.",
		Mode:        sdk.ModeDefault,
		LocalData:   true, // reads and writes this machine's files and stores only
	},
		tool(s, statusSpec, statusSchema, s.status),
		tool(s, diffSpec, diffSchema, s.diff),
		tool(s, logSpec, logSchema, s.log),
		tool(s, showSpec, showSchema, s.show),
		tool(s, blameSpec, blameSchema, s.blame),
		tool(s, addSpec, addSchema, s.add),
		tool(s, commitSpec, commitSchema, s.commit),
		tool(s, branchSpec, branchSchema, s.branch),
		tool(s, checkoutSpec, checkoutSchema, s.checkout),
		tool(s, restoreSpec, restoreSchema, s.restore),
		tool(s, stashSpec, stashSchema, s.stash),
	)
	return box
}

// server holds what the tools share: the resolved roots per host context,
// and the lock that keeps this plugin's own writes to a repository from
// racing each other (git's index.lock would fail the loser).
type server struct {
	roots roots.Cache

	writeMu sync.Mutex
}

// repoArg is the argument every tool takes; argument structs embed it.
type repoArg struct {
	Repo string `json:"repo,omitempty" jsonschema:"any path inside the repository"`
}

func (a repoArg) repoPath() string { return a.Repo }

type repoArgs interface{ repoPath() string }

// handler is a tool's body: arguments decoded, repository found.
type handler[In any] func(ctx context.Context, rp *repo, args In) (*sdk.Result, error)

// tool declares a typed tool that finds the repository named by the
// arguments' repo, with write confinement for write tools. sdk.Failf
// failures become error results; other errors are faults.
func tool[In repoArgs](s *server, spec sdk.ToolSpec, schema func() json.RawMessage, fn handler[In]) sdk.Tool {
	spec.InputSchema = schema()
	write := spec.Kind == sdk.KindWrite
	return roots.HostTool(&s.roots, spec, func(ctx context.Context, r *roots.Roots, host sdk.Host, args In) (*sdk.Result, error) {
		res, err := func() (*sdk.Result, error) {
			rp, err := openRepo(ctx, r, args.repoPath(), write, host.Commands)
			if err != nil {
				return nil, err
			}
			if write {
				s.writeMu.Lock()
				defer s.writeMu.Unlock()
			}
			return fn(ctx, rp, args)
		}()
		if te := (*sdk.ToolError)(nil); errors.As(err, &te) {
			return nil, sdk.Failf("%s", strings.ToValidUTF8(te.Msg, "\uFFFD"))
		}
		if err != nil {
			return nil, err
		}
		// Protobuf strings must be UTF-8; git output need not be.
		for i := range res.Content {
			res.Content[i].Text = strings.ToValidUTF8(res.Content[i].Text, "\uFFFD")
		}
		return res, nil
	})
}

// schemaFor is sdk.LazySchemaFor with slices as plain arrays: null is not
// a useful value to offer a model. The schemas are built by the first New,
// not at init by every process that links the package.
func schemaFor[In any](fix func(props map[string]*jsonschema.Schema)) func() json.RawMessage {
	return sdk.LazySchemaFor[In](func(props map[string]*jsonschema.Schema) {
		for _, p := range props {
			if len(p.Types) == 2 && p.Types[0] == "null" {
				p.Type, p.Types = p.Types[1], nil
			}
		}
		if fix != nil {
			fix(props)
		}
	})
}

// yes and no are addressable for annotations.
var yes, no = true, false

func nonEmptyArray(p *jsonschema.Schema) {
	one := 1
	p.MinItems = &one
}
