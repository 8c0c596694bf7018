// Package plugincli is `ramabana-mcp plugin list|install|remove|verify`:
// the plugin subcommands, which launch plugins with the server's own
// launcher (internal/launch) and manage the store (pluginstore).
package plugincli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/ramabana/ramabana-mcp/host/internal/plugincheck"
	"github.com/ramabana/ramabana-mcp/host/internal/pluginstore"
	"github.com/ramabana/ramabana-mcp/host/internal/scaffold"
	"github.com/ramabana/ramabana-mcp/host/internal/supervise"
	"github.com/ramabana/ramabana-mcp/internal/cliflag"
	"github.com/ramabana/ramabana-mcp/internal/launch"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// Command is one plugin subcommand as the usage texts list it.
type Command struct {
	Synopsis, Summary string
}

// Commands are the plugin subcommands, for this package's usage and the
// server's.
var Commands = []Command{
	{"list", "every plugin the server would start, and its health"},
	{"install PATH", "check a plugin binary, install it in CFG/plugins, lock its sha256, record its tools"},
	{"remove NAME", "remove an installed plugin and its lock entry"},
	{"verify", "check the installed plugins against their lock entries"},
	{"check PATH", "run the host's checks on a plugin binary and report each (exit 0 only when all hold)"},
	{"new NAME [DIR]", "write a working plugin with its test into DIR (default ./ramabana-plugin-NAME): --lang go|python|typescript"},
	{"serve GROUP", "run a bundled group as a plugin (the server runs this)"},
}

// Help is the command that prints the plugin subcommands' usage.
const Help = "ramabana-mcp plugin --help"

// flagSections order the subcommands' flags in the usage.
var flagSections = []cliflag.Section{{
	Title: "flags (list, install, remove, verify, check; before or after the arguments)",
	Flags: []string{"cfg DIR", "plugins DIRS", "plugin-env NAMES", "start-timeout DURATION", "call-timeout DURATION"},
}, {
	Title: "flags (new)",
	Flags: []string{"lang LANG", "sdk DIR"},
}}

// Usage writes the plugin subcommands and their flags to w.
func Usage(w io.Writer) {
	fmt.Fprint(w, "usage: ramabana-mcp plugin <command> [flags]\n\ncommands:\n")
	for _, c := range Commands {
		fmt.Fprintf(w, "  %-14s %s\n", c.Synopsis, c.Summary)
	}
	cliflag.PrintFlags(w, newFlagSet(&pluginOptions{}), flagSections)
}

// Env is what the subcommands need of the binary they run in.
type Env struct {
	// Self is the binary that serves the bundled groups.
	Self string
	// Bundled names the groups compiled into Self.
	Bundled []string
	// Version is the host's version, sent to plugins in Describe.
	Version string
	// Langs are the languages `plugin new` writes plugins in, by --lang
	// name.
	Langs          map[string]scaffold.Lang
	Stdout, Stderr io.Writer
}

// pluginOptions are the plugin subcommands' flags.
type pluginOptions struct {
	cfg          string
	plugins      cliflag.List
	startTimeout time.Duration
	callTimeout  time.Duration
	pluginEnv    cliflag.List
	lang         string
	sdkDir       string
	args         []string // positional arguments after the command
}

// Run runs the plugin subcommands other than serve. Results go to
// env.Stdout (these subcommands do not speak MCP); errors are returned.
func Run(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 {
		return usageErr(errors.New("usage: ramabana-mcp plugin list|install PATH|remove NAME|verify|serve GROUP: a command is missing"))
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "-h", "-help", "--help", "help":
		Usage(env.Stdout)
		return nil
	case "serve":
		return usageErr(errors.New("usage: ramabana-mcp plugin serve <group>"))
	}
	want := map[string]int{"list": 0, "verify": 0, "install": 1, "remove": 1, "check": 1, "new": 1}
	n, ok := want[cmd]
	if !ok {
		return usageErr(fmt.Errorf("plugin %q: unknown command; use list, install PATH, remove NAME, verify, check PATH or new NAME [DIR]", cmd))
	}
	o, err := parsePluginFlags(rest)
	if errors.Is(err, flag.ErrHelp) {
		Usage(env.Stdout)
		return nil
	}
	if err != nil {
		return usageErr(err)
	}
	if cmd == "new" {
		if len(o.args) < 1 || len(o.args) > 2 {
			return usageErr(fmt.Errorf("plugin new: want NAME [DIR], got %q", o.args))
		}
		n = len(o.args)
	}
	if len(o.args) != n {
		return usageErr(fmt.Errorf("plugin %s: want %d argument(s), got %d: %q", cmd, n, len(o.args), o.args))
	}
	if cmd == "new" {
		return newPlugin(env, o)
	}
	cfg, err := cliflag.ConfigDir(o.cfg)
	if err != nil {
		return err
	}
	o.cfg = cfg
	p := &pluginCmd{env: env, opts: o, stdout: env.Stdout}
	switch cmd {
	case "list":
		return p.list(ctx)
	case "install":
		return p.install(ctx, o.args[0])
	case "remove":
		return p.remove(o.args[0])
	case "check":
		return p.check(ctx, o.args[0])
	default:
		return p.verify()
	}
}

func usageErr(err error) error { return cliflag.Usage(err, Help) }

// newFlagSet defines the subcommands' flags on o. It prints nothing:
// Run prints the usage and the errors.
func newFlagSet(o *pluginOptions) *flag.FlagSet {
	fs := flag.NewFlagSet("ramabana-mcp plugin", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&o.cfg, "cfg", "", "config dir; plugins are installed in CFG/plugins (default: ~/.config/ramabana)")
	fs.Var(&o.plugins, "plugins", "plugin dirs searched before $RAMABANA_PLUGIN_PATH and CFG/plugins, as the server searches them")
	cliflag.DurationVar(fs, &o.startTimeout, "start-timeout", 10*time.Second, "how long a plugin may take to start and describe itself")
	cliflag.DurationVar(fs, &o.callTimeout, "call-timeout", 10*time.Second, "check: how long each call may take, and a plugin told to stop may take to exit")
	fs.StringVar(&o.lang, "lang", "go", "new: the plugin's language: "+strings.Join(scaffold.Langs(), ", "))
	fs.StringVar(&o.sdkDir, "sdk", "", "new, go: a checkout of ramabana-mcp to build against (a replace directive), for a development build of ramabana-mcp")
	fs.Var(&o.pluginEnv, "plugin-env", "host environment variables to pass to plugins beyond the built-in allow-list, as the server passes them")
	return fs
}

// parsePluginFlags parses flags anywhere among the arguments, so that
// `plugin install ./x --cfg DIR` works as well as the flags-first order.
func parsePluginFlags(args []string) (*pluginOptions, error) {
	o := &pluginOptions{}
	rest, err := cliflag.ParseAnywhere(newFlagSet(o), args)
	if err != nil {
		return nil, err
	}
	o.args = rest
	return o, nil
}

type pluginCmd struct {
	env    Env
	opts   *pluginOptions
	stdout io.Writer
}

// dirs are the plugin dirs in the server's order of precedence.
func (p *pluginCmd) dirs() []string {
	return append(slices.Clone([]string(p.opts.plugins)), supervise.DefaultPluginDirs(p.opts.cfg)...)
}

// lockedDirs are the dirs verify checks, each once: the user plugin dir,
// and every other plugin dir that has a lock file.
func (p *pluginCmd) lockedDirs() []string {
	user, _ := filepath.Abs(pluginstore.DefaultDir(p.opts.cfg))
	out := []string{user}
	for _, dir := range p.dirs() {
		abs, err := filepath.Abs(dir)
		if err != nil || slices.Contains(out, abs) {
			continue
		}
		if _, err := os.Stat(filepath.Join(abs, pluginstore.LockFileName)); err == nil {
			out = append(out, abs)
		}
	}
	return out
}

func (p *pluginCmd) userStore() (*pluginstore.Store, error) {
	return pluginstore.Open(pluginstore.DefaultDir(p.opts.cfg))
}

// hostContext is the sdk.Host sent in Describe: the current folder as the
// only root, read-only, as a server started here with default flags would
// send. What install records is used by servers of the same permissions
// (supervise.InstalledDescriptionKey).
func (p *pluginCmd) hostContext() sdk.Host {
	root, err := filepath.Abs(".")
	if err == nil {
		if r, err := filepath.EvalSymlinks(root); err == nil {
			root = r
		}
	}
	return sdk.Host{Roots: []string{root}, Web: true, ConfigDir: p.opts.cfg, HostVersion: p.env.Version}
}

// listRow is one plugin of `plugin list`.
type listRow struct {
	src    supervise.Source
	sha    string
	desc   *pluginstore.Description
	health string
}

func (p *pluginCmd) list(ctx context.Context) error {
	sources, errs := supervise.Discover(p.env.Self, p.env.Bundled, p.dirs())
	rows := make([]listRow, len(sources))
	var wg sync.WaitGroup
	for i, src := range sources {
		wg.Go(func() { rows[i] = p.inspect(ctx, src) })
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(p.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tVERSION\tPROTOCOL\tTOOLS\tSHA256\tGROUPS\tHEALTH")
	for _, r := range rows {
		version, protocol, tools, groups := "-", "-", "-", "-"
		if r.desc != nil {
			version, protocol = r.desc.Version, strconv.Itoa(r.desc.Protocol)
			tools, groups = strconv.Itoa(r.desc.Tools), strings.Join(r.desc.Groups, ",")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.src.Name, r.src, version, protocol, tools, shortSHA(r.sha), groups, r.health)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rows {
		if !r.src.Bundled && slices.Contains(p.env.Bundled, r.src.Name) {
			fmt.Fprintf(p.stdout, "note: %s %s\n", r.src.Name, shadowNote(r.src.Name))
		}
	}
	for _, err := range errs {
		fmt.Fprintf(p.stdout, "skipped: %v\n", err)
	}
	return nil
}

// shadowNote says what a plugin binary named after a bundled group does:
// it is served instead of that group, and as what it is, a third party's
// plugin, whatever it says of itself.
func shadowNote(name string) string {
	return fmt.Sprintf("shadows the bundled group %s: the server runs it instead, as a third-party plugin, without the bundled group's privileges (it is never handed the values behind --vault placeholders)", name)
}

// inspect hashes and checks a binary against its dir's lock file, then
// launches and describes it; a binary that fails its check is not run.
func (p *pluginCmd) inspect(ctx context.Context, src supervise.Source) listRow {
	r := listRow{src: src}
	if !src.Bundled {
		sha, err := pluginstore.FileSHA256(src.Path)
		if err != nil {
			r.health = err.Error()
			return r
		}
		r.sha = sha
		if err := pluginstore.VerifyInstalled(src.Path); err != nil {
			r.health = err.Error()
			return r
		}
	}
	desc, protocol, err := p.describe(ctx, launch.Command{Name: src.Name, Path: src.Path, Args: src.Args, Bundled: src.Bundled})
	if err != nil {
		r.health = err.Error()
		return r
	}
	r.desc, r.health = pluginstore.Summarize(desc, protocol), "ok"
	return r
}

// describe launches cmd with the server's launcher (environment, process
// hygiene and the description validator alike), describes it and stops it;
// it returns the description and the app protocol it was served over.
func (p *pluginCmd) describe(ctx context.Context, cmd launch.Command) (*sdk.Description, int, error) {
	opts := launch.Options{
		Env:          launch.Environ(os.Environ(), p.opts.pluginEnv),
		StartTimeout: p.opts.startTimeout,
		Logger:       slog.New(slog.NewTextHandler(p.env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	return launch.Describe(ctx, cmd, p.hostContext(), opts)
}

func shortSHA(s string) string {
	if s == "" {
		return "-"
	}
	return s[:min(12, len(s))]
}

func (p *pluginCmd) install(ctx context.Context, path string) error {
	store, err := p.userStore()
	if err != nil {
		return err
	}
	var described *sdk.Description
	e, err := store.Install(ctx, path, func(ctx context.Context, binary string) (*pluginstore.Description, error) {
		d, protocol, err := p.describe(ctx, launch.Command{Name: filepath.Base(binary), Path: binary})
		if err != nil {
			return nil, err
		}
		described = d
		return pluginstore.Summarize(d, protocol), nil
	})
	if err != nil {
		return err
	}
	// What it described, recorded for the servers: one whose permissions
	// are those it was described with lists its tools from this and starts
	// it at its first call, instead of launching it at start to ask.
	installed := supervise.Source{Name: e.Name, Path: store.Path(e.Name)}
	if err := supervise.DescriptionsIn(p.opts.cfg).Store(e.Name, supervise.InstalledDescriptionKey(installed, p.hostContext()), described); err != nil {
		fmt.Fprintf(p.env.Stderr, "warning: its description was not recorded (the first server to serve it launches it to ask): %v\n", err)
	}
	verb := "installed"
	if e.Replaced != nil {
		verb = "replaced " + e.Name + " " + e.Replaced.Version + " with"
	}
	fmt.Fprintf(p.stdout, "%s %s %s (protocol %d)\n  sha256  %s\n  file    %s\n  source  %s\n",
		verb, e.Name, e.Version, e.Protocol, e.SHA256, store.Path(e.Name), e.Source)
	if slices.Contains(p.env.Bundled, e.Name) {
		fmt.Fprintf(p.stdout, "  it %s\n", shadowNote(e.Name))
	}
	sources, _ := supervise.Discover(p.env.Self, nil, p.dirs())
	for _, s := range sources {
		if s.Name == e.Name && s.Path != store.Path(e.Name) {
			fmt.Fprintf(p.stdout, "  warning: the server starts %s instead: that dir comes first\n", s.Path)
		}
	}
	return nil
}

func (p *pluginCmd) remove(name string) error {
	store, err := p.userStore()
	if err != nil {
		return err
	}
	if err := store.Remove(name); err != nil {
		return err
	}
	fmt.Fprintf(p.stdout, "removed %s (%s)\n", name, store.Path(name))
	if slices.Contains(p.env.Bundled, name) {
		fmt.Fprintf(p.stdout, "  the bundled group %s is served again\n", name)
	}
	return nil
}

// check runs plugincheck on the binary at path, printing each finding as
// it is made; it fails when one check failed.
func (p *pluginCmd) check(ctx context.Context, path string) error {
	opts := plugincheck.Options{
		Env:          launch.Environ(os.Environ(), p.opts.pluginEnv),
		StartTimeout: p.opts.startTimeout,
		CallTimeout:  p.opts.callTimeout,
		HostVersion:  p.env.Version,
		// Errors only: the findings say what the launcher warns of.
		Logger: slog.New(slog.NewTextHandler(p.env.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
	}
	checks, notes := 0, map[plugincheck.Status]int{}
	failed, err := plugincheck.Run(ctx, path, opts, func(f plugincheck.Finding) {
		checks++
		notes[f.Status]++
		fmt.Fprintln(p.stdout, f)
	})
	if err != nil {
		return fmt.Errorf("plugin check: %w", err)
	}
	if failed > 0 {
		return fmt.Errorf("plugin check: %d of %d checks failed", failed, checks)
	}
	fmt.Fprintf(p.stdout, "%d checks hold (%d warnings, %d skipped): `ramabana-mcp plugin install %s` will accept it\n", notes[plugincheck.Pass], notes[plugincheck.Warn], notes[plugincheck.Skip], path)
	return nil
}

// newPlugin writes a new plugin's folder and says what to run next.
func newPlugin(env Env, o *pluginOptions) error {
	lang, ok := env.Langs[o.lang]
	if !ok {
		return usageErr(fmt.Errorf("plugin new: --lang %q: use %s", o.lang, strings.Join(slices.Sorted(maps.Keys(env.Langs)), ", ")))
	}
	name := o.args[0]
	if err := scaffold.CheckName(name); err != nil {
		return usageErr(fmt.Errorf("plugin new: %w", err))
	}
	dir := "ramabana-plugin-" + name
	if len(o.args) == 2 {
		dir = o.args[1]
	}
	var note string
	if lang.Name == "go" {
		vars, n, err := scaffold.GoVars(o.sdkDir)
		if err != nil {
			return fmt.Errorf("plugin new: %w", err)
		}
		lang.Vars, note = vars, n
	} else if o.sdkDir != "" {
		return usageErr(errors.New("plugin new: --sdk is for --lang go; the other kits are written into the plugin"))
	}
	files, err := scaffold.Write(lang, name, dir)
	if err != nil {
		return fmt.Errorf("plugin new: %w", err)
	}
	fmt.Fprintf(env.Stdout, "wrote %s, a %s plugin named %s: %s\n", dir, lang.Name, name, strings.Join(files, " "))
	if note != "" {
		fmt.Fprintf(env.Stdout, "  %s\n", note)
	}
	fmt.Fprintf(env.Stdout, "next:\n  cd %s\n", dir)
	for _, c := range lang.NextSteps(name) {
		fmt.Fprintf(env.Stdout, "  %s\n", c)
	}
	return nil
}

// verify checks the user plugin dir, and every other plugin dir that has a
// lock file.
func (p *pluginCmd) verify() error {
	dirs := p.lockedDirs()
	problems, total := 0, 0
	for _, dir := range dirs {
		store, err := pluginstore.Open(dir)
		if err != nil {
			return err
		}
		checks, err := store.Verify()
		if err != nil {
			return err
		}
		for _, c := range checks {
			total++
			line := fmt.Sprintf("%-9s %s  %s", c.Status, c.Name, c.Path)
			switch c.Status {
			case pluginstore.StatusMismatch:
				line += fmt.Sprintf(": sha256 %s, locked %s; reinstall it with ramabana-mcp plugin install", c.Actual, c.Locked)
			case pluginstore.StatusMissing:
				line += "; reinstall it, or drop its entry with ramabana-mcp plugin remove " + c.Name
			case pluginstore.StatusUnlocked:
				line += ": no lock entry (dropped in by hand; served unchecked)"
			case pluginstore.StatusError:
				line += fmt.Sprintf(": %v", c.Err)
			}
			fmt.Fprintln(p.stdout, line)
			if c.Problem() {
				problems++
			}
		}
	}
	if total == 0 {
		fmt.Fprintf(p.stdout, "no plugins installed in %s\n", dirs[0])
	}
	if problems > 0 {
		return fmt.Errorf("plugin verify: %d of %d plugins failed", problems, total)
	}
	return nil
}
