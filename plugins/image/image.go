package image

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ramabana/ramabana-mcp/internal/apimessage"
	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// Version is the plugin's version, sent in Describe and in the User-Agent.
const Version = "0.1.0"

const userAgent = "ramabana-mcp/" + Version + " (image plugin; +https://github.com/ramabana/ramabana-mcp)"

// maxPrompt bounds a prompt, in bytes: the largest any images API takes
// (gpt-image-1's 32,000 characters) with room for multi-byte text.
const maxPrompt = 64 << 10

// New returns the image plugin, ready for sdk.Serve.
func New() *sdk.Toolbox {
	return newToolbox(newServer())
}

func newToolbox(s *server) *sdk.Toolbox {
	box := sdk.NewToolbox("image", sdk.WithVersion(Version),
		sdk.WithDescription("Generate images with a configured OpenAI-compatible images API."))
	spec := generateSpec
	spec.InputSchema = generateSchema()
	box.AddGroup(sdk.GroupSpec{
		Name:        "image",
		Description: "Generate an image from a prompt through the images API in the config file; return it, and with --write save it in a served folder.",
		Mode:        sdk.ModeDefault,
	},
		sdk.TypedTool(spec, func(ctx context.Context, req *sdk.Request, args generateArgs) (*sdk.Result, error) {
			res, err := s.generateImage(ctx, req, args)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", spec.Name, err)
			}
			return res, nil
		}),
	)
	return box
}

type generateArgs struct {
	Prompt    string `json:"prompt" jsonschema:"What the image shows, in plain words."`
	Size      string `json:"size,omitempty" jsonschema:"WIDTHxHEIGHT or auto; default from the config, else 1024x1024."`
	Path      string `json:"path,omitempty" jsonschema:"File in a served folder to save the image to (needs --write)."`
	Overwrite bool   `json:"overwrite,omitempty" jsonschema:"Replace path if it exists. Default false."`
}

var generateSpec = sdk.ToolSpec{
	Name:  "generate_image",
	Title: "Generate image",
	Kind:  sdk.KindAct,
	// Destructive: with --write and overwrite, a saved image replaces a
	// file; an annotation cannot depend on the arguments, so it says the
	// worst a call can do.
	Annotations: sdk.Annotations{OpenWorld: ptr(true), Destructive: ptr(true)},
	Description: `Generate an image from a prompt with the image model the user configured, and return it as image content (PNG, JPEG or WebP). With path (needs --write), also save it in a served folder: path ends in .png, .jpg, .jpeg or .webp; an existing file needs overwrite. Each call may cost the user money. Without a configured provider, the error says how to set one up.`,
}

// generateSchema leaves size's form to the handler, whose error says
// more than a pattern's would.
var generateSchema = sdk.LazySchemaFor[generateArgs](func(p map[string]*jsonschema.Schema) {
	p["overwrite"].Default = []byte("false")
})

func ptr[T any](v T) *T { return &v }

// server holds what the calls share. Its fields other than roots are set
// once, before serving; tests replace some.
type server struct {
	// api asks the provider; it follows no redirect.
	api *http.Client
	// open fetches the image URLs of a local provider, guarded those of
	// any other (see guardedTransport).
	open, guarded *http.Client
	// policy tells a local provider from another.
	policy addressPolicy
	getenv func(string) string
	// progressEvery is how often a call waiting for the provider says so.
	progressEvery time.Duration
	// maxImage caps an image, decoded, in bytes.
	maxImage int

	roots roots.Cache
}

func newServer() *server {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 2
	return &server{
		api: &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}},
		open:          &http.Client{Transport: tr, CheckRedirect: redirectsTo("http", "https")},
		guarded:       &http.Client{Transport: guardedTransport(defaultPolicy), CheckRedirect: redirectsTo("https")},
		policy:        defaultPolicy,
		getenv:        os.Getenv,
		progressEvery: 5 * time.Second,
		maxImage:      defaultMaxImage,
	}
}

// errWebOff is the text of every call when the host does not allow the web.
const errWebOff = "web access is turned off on this server (the host runs with --web=false), so generate_image cannot reach the image provider; ask the user to restart ramabana-mcp with --web"

func (s *server) generateImage(ctx context.Context, req *sdk.Request, args generateArgs) (*sdk.Result, error) {
	if !req.Host.Web {
		return nil, sdk.Failf(errWebOff)
	}
	prompt := strings.TrimSpace(args.Prompt)
	switch {
	case prompt == "":
		return nil, sdk.Failf("prompt is empty; describe the image to generate")
	case len(prompt) > maxPrompt:
		return nil, sdk.Failf("prompt is %s long; at most %s is taken", byteSize(len(prompt)), byteSize(maxPrompt))
	case args.Size != "" && !sizeRE().MatchString(args.Size):
		return nil, sdk.Failf("size %q is not WIDTHxHEIGHT (such as 1024x1024) or auto", args.Size)
	}
	// Where to save is checked before the provider is paid.
	var dest *destination
	if args.Path != "" {
		var err error
		if dest, err = s.destination(req.Host, args.Path, args.Overwrite); err != nil {
			return nil, err
		}
	}
	p, err := loadConfig(req.Host.ConfigDir, s.getenv)
	if err != nil {
		return nil, err
	}
	size := args.Size
	if size == "" {
		size = p.size
	}
	stop := s.reportWaiting(ctx, req.Events, p)
	img, err := s.generate(ctx, p, prompt, size)
	stop()
	if err != nil {
		return nil, p.redactError(err)
	}
	text := fmt.Sprintf("Generated %s with %s.", describe(img.format, img.data), p.model)
	if img.revisedPrompt != "" {
		text += "\nRevised prompt: " + apimessage.Excerpt(p.redact([]byte(img.revisedPrompt)), 2000)
	}
	res := &sdk.Result{Content: []sdk.Content{{Text: text}, {Image: &sdk.Image{Data: img.data, MIMEType: img.format.mime}}}}
	if dest == nil {
		return res, nil
	}
	saved, change, err := dest.save(ctx, img)
	if err != nil {
		var te *sdk.ToolError
		if !errors.As(err, &te) {
			return nil, err
		}
		// The image is paid for: the model gets it, with why it was not saved.
		res.IsError = true
		res.Content[0].Text = fmt.Sprintf("%s\nThe image was generated but not saved: %s. It is below; saving it under another path means generating it again.", text, te.Msg)
		return res, nil
	}
	res.Content[0].Text = text + "\n" + saved
	res.Changes = []sdk.FileChange{change}
	return res, nil
}

// reportWaiting sends a progress event every progressEvery until the
// returned stop is called, so that a client sees a slow model at work;
// stop returns once no more events come.
func (s *server) reportWaiting(ctx context.Context, events sdk.Events, p *provider) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(s.progressEvery)
		defer tick.Stop()
		start := time.Now()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				waited := time.Since(start)
				events.Progress(waited.Seconds(), 0, fmt.Sprintf("waiting for %s (%s of at most %s)", p.model, waited.Round(time.Second), p.timeout))
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// redactError hides the key in a tool error's message; any message that
// may quote the provider goes through here.
func (p *provider) redactError(err error) error {
	var te *sdk.ToolError
	if errors.As(err, &te) {
		return sdk.Failf("%s", p.redact([]byte(te.Msg)))
	}
	return err
}

// unwrapPath drops the path a *fs.PathError repeats: it is absolute, and
// the message names the file already.
func unwrapPath(err error) error {
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
