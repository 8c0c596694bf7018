package git

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	box := sdk.NewToolbox("git", Version, "Read and change git repositories in the served folders with the git binary.")
	box.AddGroup(sdk.GroupSpec{
		Name:        "git",
		Description: "git status, diff, log, show and blame; add, commit, branch and checkout. Paths are confined to the repository and the served folders; no argument can become a git option.",
		Mode:        sdk.ModeDefault,
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
	)
	return box
}

// server holds what the tools share: the resolved roots per host context,
// and the lock that keeps this plugin's own writes to a repository from
// racing each other (git's index.lock would fail the loser).
type server struct {
	mu    sync.Mutex
	roots map[string]*roots.Roots

	writeMu sync.Mutex
}

// maxCachedRoots bounds the roots cache; host contexts rarely change.
const maxCachedRoots = 8

// rootsFor returns the roots of a host context, built once per distinct
// context. A served folder that cannot be resolved is a host fault.
func (s *server) rootsFor(h sdk.Host) (*roots.Roots, error) {
	key := fmt.Sprintf("%t\x00%s", h.ReadOutside, strings.Join(h.Roots, "\x00"))
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.roots[key]; ok {
		return r, nil
	}
	r, err := roots.New(h.Roots, h.ReadOutside)
	if err != nil {
		return nil, err
	}
	if s.roots == nil || len(s.roots) >= maxCachedRoots {
		s.roots = map[string]*roots.Roots{}
	}
	s.roots[key] = r
	return r, nil
}

// toolError is a failure the model can act on; handlers return it and the
// tool adapter turns it into an error result.
type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

func failf(format string, args ...any) error {
	return &toolError{msg: fmt.Sprintf(format, args...)}
}

// repoArg is the argument every tool takes; argument structs embed it.
type repoArg struct {
	Repo string `json:"repo,omitempty" jsonschema:"A path inside the served folders from which git finds the repository (any folder or file in it). Relative paths are relative to the first served folder. Default: the first served folder."`
}

func (a repoArg) repoPath() string { return a.Repo }

type repoArgs interface{ repoPath() string }

// handler is a tool's body: arguments decoded, repository found.
type handler[In any] func(ctx context.Context, rp *repo, args In) (*sdk.Result, error)

// tool declares a typed tool that finds the repository named by the
// arguments' repo, with write confinement for write tools. *toolError
// failures become error results; other errors are faults.
func tool[In repoArgs](s *server, spec sdk.ToolSpec, schema json.RawMessage, fn handler[In]) sdk.Tool {
	spec.InputSchema = schema
	write := spec.Kind == sdk.KindWrite
	return sdk.TypedTool(spec, func(ctx context.Context, req *sdk.Request, args In) (*sdk.Result, error) {
		r, err := s.rootsFor(req.Host)
		if err != nil {
			return nil, fmt.Errorf("%s: served folders: %w", spec.Name, err)
		}
		res, err := func() (*sdk.Result, error) {
			rp, err := openRepo(ctx, r, args.repoPath(), write)
			if err != nil {
				return nil, err
			}
			if write {
				s.writeMu.Lock()
				defer s.writeMu.Unlock()
			}
			return fn(ctx, rp, args)
		}()
		if te := (*toolError)(nil); errors.As(err, &te) {
			return sdk.Errorf("%s", strings.ToValidUTF8(te.msg, "\uFFFD")), nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", spec.Name, err)
		}
		// Protobuf strings must be UTF-8; git output need not be.
		for i := range res.Content {
			res.Content[i].Text = strings.ToValidUTF8(res.Content[i].Text, "\uFFFD")
		}
		return res, nil
	})
}

// schemaFor infers the input schema of In and lets fix add what struct tags
// cannot say (defaults, bounds). Slices are plain arrays: null is not a
// useful value to offer a model. It panics on a bad type, a programming
// error found at start-up.
func schemaFor[In any](fix func(props map[string]*jsonschema.Schema)) json.RawMessage {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("git: schema: %v", err))
	}
	for _, p := range s.Properties {
		if len(p.Types) == 2 && p.Types[0] == "null" {
			p.Type, p.Types = p.Types[1], nil
		}
	}
	if fix != nil {
		fix(s.Properties)
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("git: schema: %v", err))
	}
	return b
}

// yes and no are addressable for annotations.
var yes, no = true, false

func intBounds(p *jsonschema.Schema, def int, minimum, maximum float64) {
	p.Default = json.RawMessage(fmt.Sprint(def))
	p.Minimum = &minimum
	if maximum > 0 {
		p.Maximum = &maximum
	}
}

func nonEmptyArray(p *jsonschema.Schema) {
	one := 1
	p.MinItems = &one
}

var _ error = (*toolError)(nil)
