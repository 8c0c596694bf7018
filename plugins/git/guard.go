package git

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ramabana/ramabana-mcp/sdk"
	"github.com/ramabana/ramabana-mcp/sdk/roots"
)

// A repository's own config (its config file, config.worktree, and every
// file they include) is data the model can write and a clone brings along,
// so it may not choose a program for git to run unless the user allows
// commands (the shell group is mounted). The user's global and system
// config are the user's own and are trusted (git-lfs's filter.lfs.* in
// ~/.gitconfig keeps working), but only where the model cannot write them:
// an entry whose file lies inside a served folder (~/.gitconfig when the
// home folder is served, or a file a global include brings in from a
// served folder) is repository-controlled, whatever its scope.
//
// guard lists the config git will read (git config --list --show-scope
// --show-origin --includes, which runs nothing) and gives every key that
// names a program, when repository-controlled config sets it, the value
// from trusted config or, without one, a value that runs nothing. The overrides go to git as
// GIT_CONFIG_COUNT/KEY/VALUE variables (command-line scope, above the
// repository's, passed on to the git processes git starts, and free of -c's
// quoting). Hooks are all turned off (core.hooksPath=/dev/null: every hook
// lookup fails), submodules are not entered, and the tools add --no-textconv
// and --no-ext-diff where git takes them.
//
// Values checked with git 2.39: an empty filter.<d>.clean, smudge or
// process runs nothing and passes content through; an empty textconv or
// diff command fails the diff instead ("cannot run"), so textconv gets cat
// (identity) behind --no-textconv and diff commands stay behind
// --no-ext-diff.
//
// The list is taken once per call, just before the call's git commands, so
// config changed in between (a concurrent write to .git/config) is not
// covered for the keys named per driver; the fixed keys (fsmonitor, hooks,
// pager, submodules, askpass) are set whatever the list says, and where
// the kernel has Landlock the exec sandbox (sandbox.go) stops any program
// that is not git or a program trusted config names.
//
// The same list serves files.go, which keeps repository-controlled config
// from making git read files outside the served folders; that part holds
// whether or not commands are allowed.
type guard struct {
	// programs says program-running keys are guarded (commands are not
	// allowed); without it the guard only confines the files git reads.
	programs bool
	// env is the GIT_CONFIG_* variables.
	env []string
	// blocked are the filter drivers whose clean or process command comes
	// from the repository's config only, and so is turned off: git_add
	// would stage unfiltered content.
	blocked map[string]bool
	// smudged are the filter drivers whose smudge or process command comes
	// from the repository's config only, and so is turned off: git_checkout
	// would write files unfiltered (LFS pointers instead of content).
	smudged map[string]bool
	// trusted are the programs the user's own config names for the keys
	// guard watches (git-lfs, a credential helper, /bin/sh for a command
	// line with arguments), with their interpreters: the exec sandbox lets
	// git run them (see sandbox.go).
	trusted []string
	// blame are the git blame options that replace blame.ignoreRevsFile
	// (see files.go).
	blame []string
}

// configEntry is one line of git config --list.
type configEntry struct {
	scope, key string
	// origin is where git read the entry: "file:PATH" (PATH absolute, or
	// relative to the top level), "command line:", "blob:...".
	origin string
	// value is nil for a key with no '=' (boolean true).
	value *string
	// repo says the model could have written the entry: its scope is the
	// repository's, or its file lies inside a served folder.
	repo bool
}

// file is the absolute path of the file the entry came from, "" when it
// came from no file.
func (e configEntry) file(top string) string {
	p, ok := strings.CutPrefix(e.origin, "file:")
	if !ok || p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(top, p)
	}
	return filepath.Clean(p)
}

// controlled says whether the model could have written e: repository
// scopes always, the user's scopes when their file lies inside a root.
func controlled(e configEntry, top string, r *roots.Roots) bool {
	if !trustedScope(e.scope) {
		return true
	}
	f := e.file(top)
	return f != "" && insideRoots(r, f)
}

// trusted scopes are the user's: system and global config, and the
// command line (only this plugin's own -c).
func trustedScope(scope string) bool {
	return scope == "system" || scope == "global" || scope == "command"
}

// override says what a dangerous key gets when the repository sets it.
type override struct {
	// neutral is the value without a trusted one.
	neutral string
	// always sets the key even when the repository does not, so that a
	// config written after the list was taken still cannot set it.
	always bool
	// multi keys accumulate (credential.helper): an empty value clears the
	// list, then the trusted values are given again.
	multi bool
}

// exactKeys are dangerous keys by full name (section and variable lower
// case, as git config --list prints them).
var exactKeys = map[string]override{
	"core.fsmonitor":            {neutral: "false", always: true},
	"core.pager":                {neutral: "cat", always: true},
	"core.askpass":              {neutral: "", always: true},
	"core.sshcommand":           {neutral: "ssh"},
	"core.editor":               {neutral: "true"},
	"sequence.editor":           {neutral: "true"},
	"core.gitproxy":             {neutral: "", multi: true},
	"core.alternaterefscommand": {neutral: ""},
	"diff.external":             {neutral: ""},
	"gpg.program":               {neutral: "gpg"},
	"gpg.ssh.defaultkeycommand": {neutral: ""},
	"commit.gpgsign":            {neutral: "false"},
	"tag.gpgsign":               {neutral: "false"},
	"push.gpgsign":              {neutral: "false"},
	"log.showsignature":         {neutral: "false"},
	"credential.helper":         {neutral: "", multi: true},
	"interactive.difffilter":    {neutral: ""},
	"imap.tunnel":               {neutral: ""},
	"sendemail.smtpserver":      {neutral: ""},
}

// driverKeys are dangerous keys by section and variable, for any
// subsection (a driver, URL, tool or remote name).
var driverKeys = map[[2]string]override{
	{"filter", "clean"}:       {neutral: ""},
	{"filter", "smudge"}:      {neutral: ""},
	{"filter", "process"}:     {neutral: ""},
	{"filter", "required"}:    {neutral: "false"},
	{"diff", "textconv"}:      {neutral: "cat"},
	{"diff", "command"}:       {neutral: ""},
	{"merge", "driver"}:       {neutral: "false"},
	{"gpg", "program"}:        {neutral: ""}, // per format, see gpgDefault
	{"credential", "helper"}:  {neutral: "", multi: true},
	{"remote", "uploadpack"}:  {neutral: "git-upload-pack"},
	{"remote", "receivepack"}: {neutral: "git-receive-pack"},
	{"submodule", "update"}:   {neutral: "none"},
	{"trailer", "command"}:    {neutral: ""},
	{"trailer", "cmd"}:        {neutral: ""},
	{"difftool", "cmd"}:       {neutral: ""},
	{"mergetool", "cmd"}:      {neutral: ""},
	{"browser", "cmd"}:        {neutral: ""},
	{"man", "cmd"}:            {neutral: ""},
}

// gpgDefault is git's own program for a signature format.
var gpgDefault = map[string]string{"openpgp": "gpg", "x509": "gpgsm", "ssh": "ssh-keygen"}

// fixedConfig is set whenever commands are not allowed.
var fixedConfig = [][2]string{
	// Every hook lookup fails: /dev/null is not a directory.
	{"core.hooksPath", os.DevNull},
	// Submodules have config of their own that this guard never read.
	{"submodule.recurse", "false"},
	{"diff.ignoreSubmodules", "all"},
	{"status.submoduleSummary", "false"},
}

// classify returns what a key gets, and whether it is dangerous.
func classify(key string) (override, bool) {
	if o, ok := exactKeys[key]; ok {
		return o, true
	}
	section, rest, ok := strings.Cut(key, ".")
	if !ok {
		return override{}, false
	}
	if section == "pager" {
		// pager.<command>: a boolean or a pager command.
		return override{neutral: "false"}, true
	}
	i := strings.LastIndexByte(rest, '.')
	if i < 0 {
		return override{}, false
	}
	sub, name := rest[:i], rest[i+1:]
	o, ok := driverKeys[[2]string{section, name}]
	if ok && section == "gpg" {
		o.neutral = gpgDefault[sub]
	}
	return o, ok
}

// loadGuard reads the config of the repository at l and builds its guard:
// program keys guarded when programs is set, files outside r confined
// unless r allows reads outside.
func loadGuard(ctx context.Context, l layout, r *roots.Roots, programs bool) (*guard, error) {
	out, err := git(ctx, l.top, run{env: l.env(), confine: programs}, "config", "--list", "--show-scope", "--show-origin", "--includes", "-z")
	if err != nil {
		return nil, err
	}
	if !out.ok() || out.cut {
		return nil, sdk.Failf("cannot read the git config of %s (needed to keep its programs from running and its files inside the served folders):\n%s", l.top, out.message())
	}
	entries := parseConfigList(out.stdout)
	for i := range entries {
		entries[i].repo = controlled(entries[i], l.top, r)
	}
	g := &guard{programs: programs, blocked: map[string]bool{}, smudged: map[string]bool{}}
	if !r.ReadOutside() {
		if err := g.confineFiles(l, r, entries); err != nil {
			return nil, err
		}
	}
	if programs {
		g.guardPrograms(ctx, l, entries)
	}
	g.env = append(g.env, g.count())
	return g, nil
}

// set adds a GIT_CONFIG_KEY/VALUE pair; count closes the list.
func (g *guard) set(key, value string) {
	n := len(g.env) / 2
	g.env = append(g.env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n, key), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n, value))
}

func (g *guard) count() string { return fmt.Sprintf("GIT_CONFIG_COUNT=%d", len(g.env)/2) }

// guardPrograms gives every program key the repository's config sets a
// trusted or neutral value, and records the trusted programs.
func (g *guard) guardPrograms(ctx context.Context, l layout, entries []configEntry) {
	set := g.set
	// Dangerous keys in the order first seen, each once.
	var keys []string
	seen := map[string]bool{}
	add := func(key string) {
		if !seen[key] {
			seen[key] = true
			keys = append(keys, key)
		}
	}
	for key, o := range exactKeys {
		if o.always {
			add(key)
		}
	}
	slices.Sort(keys)
	for _, e := range entries {
		if !e.repo {
			continue
		}
		if _, ok := classify(e.key); ok {
			add(e.key)
		}
	}
	for _, e := range entries {
		if _, ok := classify(e.key); ok && e.value != nil && !plainValues[strings.ToLower(*e.value)] && !e.repo && (e.scope == "system" || e.scope == "global") {
			g.trusted = append(g.trusted, programsOf(*e.value)...)
		}
	}
	slices.Sort(g.trusted)
	g.trusted = slices.Compact(g.trusted)
	trustedValues := func(key string) []string {
		var vs []string
		for _, e := range entries {
			if e.key == key && !e.repo {
				v := "true"
				if e.value != nil {
					v = *e.value
				}
				vs = append(vs, v)
			}
		}
		return vs
	}
	for _, key := range keys {
		o, _ := classify(key)
		tv := trustedValues(key)
		switch {
		case o.multi:
			set(key, "")
			for _, v := range tv {
				set(key, v)
			}
		case len(tv) > 0:
			set(key, tv[len(tv)-1])
		default:
			set(key, o.neutral)
		}
	}
	// A filter the repository set a clean or process command for is off
	// now, unless trusted config gives it a program that still runs. An
	// empty process turns clean off too (git 2.39 picks process whenever
	// it is set), so a repository's process hides a trusted clean.
	for _, key := range keys {
		section, rest, _ := strings.Cut(key, ".")
		i := strings.LastIndexByte(rest, '.')
		if section != "filter" || i < 0 {
			continue
		}
		driver, name := rest[:i], rest[i+1:]
		trustedClean := len(trustedValues("filter."+driver+".clean")) > 0
		trustedSmudge := len(trustedValues("filter."+driver+".smudge")) > 0
		trustedProcess := len(trustedValues("filter."+driver+".process")) > 0
		switch {
		case name == "process" && !trustedProcess,
			name == "clean" && !trustedClean && !trustedProcess:
			g.blocked[driver] = true
		}
		switch {
		case name == "process" && !trustedProcess,
			name == "smudge" && !trustedSmudge && !trustedProcess:
			g.smudged[driver] = true
		}
	}
	for _, kv := range fixedConfig {
		set(kv[0], kv[1])
	}
	// Reading .gitmodules from the index loads the index, which runs
	// fsmonitor: the names are read under the guard so far.
	names := submoduleNames(ctx, l, append(slices.Clip(g.env), g.count()), g.trusted)
	for _, name := range names {
		set("submodule."+name+".ignore", "all")
	}
}

// parseConfigList reads git config --list --show-scope --show-origin -z:
// records of "scope NUL origin NUL key LF value NUL", or "scope NUL origin
// NUL key NUL" for a key without a value.
func parseConfigList(data []byte) []configEntry {
	var out []configEntry
	recs := bytes.Split(data, []byte{0})
	for i := 0; i+2 < len(recs); i += 3 {
		scope, origin, kv := string(recs[i]), string(recs[i+1]), string(recs[i+2])
		key, value, hasValue := strings.Cut(kv, "\n")
		e := configEntry{scope: scope, origin: origin, key: key}
		if hasValue {
			e.value = &value
		}
		out = append(out, e)
	}
	return out
}

// submoduleNames are the submodule names .gitmodules declares (in the work
// tree, else the index, else HEAD, as git reads it). A name's own ignore
// setting would override diff.ignoreSubmodules, and looking into a
// submodule runs git there with the submodule's config.
func submoduleNames(ctx context.Context, l layout, guardEnv, trusted []string) []string {
	r := run{env: append(l.env(), guardEnv...), limit: 1 << 20, confine: true, trusted: trusted}
	var sources [][]string
	if fi, err := os.Lstat(filepath.Join(l.top, ".gitmodules")); err == nil && fi.Mode().IsRegular() {
		sources = append(sources, []string{"--file", filepath.Join(l.top, ".gitmodules")})
	}
	// Which of the index's and HEAD's .gitmodules exist, in one git
	// process: most repositories have neither, and a git config --blob of
	// each would be two processes failing on every call.
	lookup := r
	lookup.stdin = strings.NewReader(":.gitmodules\nHEAD:.gitmodules\n")
	if out, err := git(ctx, l.top, lookup, "cat-file", "--batch-check=%(objectname)"); err == nil && out.code == 0 {
		for _, line := range strings.Split(strings.TrimSuffix(string(out.stdout), "\n"), "\n") {
			if oid, missing := strings.CutSuffix(line, " missing"); !missing && oid != "" {
				sources = append(sources, []string{"--blob", oid})
			}
		}
	}
	for _, src := range sources {
		args := append(append([]string{"config"}, src...), "--list", "--name-only", "-z")
		out, err := git(ctx, l.top, r, args...)
		if err != nil || out.code != 0 {
			continue
		}
		var names []string
		for _, key := range strings.Split(strings.TrimSuffix(string(out.stdout), "\x00"), "\x00") {
			rest, ok := strings.CutPrefix(key, "submodule.")
			i := strings.LastIndexByte(rest, '.')
			if !ok || i <= 0 {
				continue
			}
			if name := rest[:i]; !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
		return names
	}
	return nil
}

// checkFilters refuses to stage paths (repository-relative pathspecs)
// whose attributes name a filter the guard turned off: git would stage the
// file unfiltered, where the repository meant to run a program on it.
// tracked limits the check to tracked files (what git commit -- paths
// stages).
func (rp *repo) checkFilters(ctx context.Context, paths []string, tracked bool) error {
	if rp.guard == nil || len(rp.guard.blocked) == 0 || len(paths) == 0 {
		return nil
	}
	args := []string{"ls-files", "-z", "--modified"}
	if !tracked {
		args = append(args, "--others", "--exclude-standard")
	}
	list, err := rp.git(ctx, run{}, append(append(args, "--"), paths...)...)
	if err != nil {
		return err
	}
	return rp.refuseFiltered(ctx, list, "git ls-files", rp.guard.blocked, func(drivers, shown string) error {
		return sdk.Failf("nothing was staged: the repository's own config names filter %s for these paths, and git would run that program on them:\n  %s\nPrograms named by repository config run only when commands are allowed: mount the shell group (--write, and not --groups without shell) to allow it, or stage these files in a shell",
			drivers, shown)
	})
}

// refuseFiltered returns refusal(drivers, shown) when a path in list (the
// output of the git command cmd: NUL-separated, repository-relative paths)
// has a filter among drivers, with the drivers joined by ", " and shown
// the paths as filterHits gives them; nil when none has.
func (rp *repo) refuseFiltered(ctx context.Context, list *output, cmd string, drivers map[string]bool, refusal func(drivers, shown string) error) error {
	if !list.ok() || list.cut {
		return list.failure(cmd)
	}
	if len(list.stdout) == 0 {
		return nil
	}
	names, shown, err := rp.filterHits(ctx, list.stdout, drivers)
	if err != nil || len(names) == 0 {
		return err
	}
	return refusal(strings.Join(names, ", "), shown)
}

// filterHits reads the filter attribute of paths (NUL-separated,
// repository-relative) and returns the drivers among them in sorted order,
// and the paths that name one, ten at most, one per line: "" and nil when
// none does.
func (rp *repo) filterHits(ctx context.Context, paths []byte, drivers map[string]bool) ([]string, string, error) {
	attr, err := rp.git(ctx, run{stdin: bytes.NewReader(paths)}, "check-attr", "-z", "--stdin", "filter")
	if err != nil {
		return nil, "", err
	}
	if !attr.ok() || attr.cut {
		return nil, "", attr.failure("git check-attr")
	}
	var hits []string
	found := map[string]bool{}
	f := strings.Split(string(attr.stdout), "\x00")
	for i := 0; i+2 < len(f); i += 3 {
		if drivers[f[i+2]] {
			found[f[i+2]] = true
			if !slices.Contains(hits, f[i]) {
				hits = append(hits, f[i])
			}
		}
	}
	if len(hits) == 0 {
		return nil, "", nil
	}
	names := slices.Sorted(maps.Keys(found))
	shown := hits
	if len(shown) > 10 {
		shown = shown[:10]
	}
	text := strings.Join(shown, "\n  ")
	if len(hits) > len(shown) {
		text += fmt.Sprintf("\n  ... and %d more", len(hits)-len(shown))
	}
	return names, text, nil
}

// checkSmudge refuses a checkout that would write paths (the files that
// differ between HEAD and target) whose filter's smudge program the guard
// turned off: git would write them unfiltered.
func (rp *repo) checkSmudge(ctx context.Context, target string) error {
	if rp.guard == nil || len(rp.guard.smudged) == 0 {
		return nil
	}
	from, err1 := rp.verify(ctx, "ref", "HEAD", "commit")
	to, err2 := rp.verify(ctx, "ref", target, "commit")
	if err1 != nil || err2 != nil || from == to {
		return nil
	}
	out, err := rp.git(ctx, run{}, "diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", from, to, "--")
	if err != nil {
		return err
	}
	return rp.refuseSmudged(ctx, out, "git diff", "checked out", "this checkout", "check out")
}

// refuseSmudged refuses a command that would write the files list names
// (git's -z output of cmd) when a filter's smudge program the guard
// turned off applies to one: git would write it unfiltered. The refusal
// says nothing was done (done: "checked out"), what would have written
// (this: "this checkout") and what to do in a shell instead (do: "check
// out").
func (rp *repo) refuseSmudged(ctx context.Context, list *output, cmd, done, this, do string) error {
	if rp.guard == nil || len(rp.guard.smudged) == 0 {
		return nil
	}
	return rp.refuseFiltered(ctx, list, cmd, rp.guard.smudged, func(drivers, shown string) error {
		return sdk.Failf("nothing was %s: the repository's own config names filter %s for files %s would write, and git would run that program on them:\n  %s\nPrograms named by repository config run only when commands are allowed: mount the shell group (--write, and not --groups without shell) to allow it, or %s in a shell",
			done, drivers, this, shown, do)
	})
}

// plainValues name no program: booleans and the empty value.
var plainValues = map[string]bool{"": true, "true": true, "false": true, "yes": true, "no": true, "on": true, "off": true, "0": true, "1": true, "none": true}

// shellChars are the characters that make git run a command line through
// the shell rather than directly (run-command.c).
const shellChars = "|&;<>()$`\\\"' \t\n*?[#~=%"

// programsOf is what git would execute for a configured command line: its
// program, found on the PATH, with its interpreter (see interpreters), and
// the shell when git needs one for it (git runs /bin/sh -c; sh on the PATH
// is added too, for the programs that start "sh").
func programsOf(cmdline string) []string {
	var out []string
	if strings.ContainsAny(cmdline, shellChars) {
		out = append(out, "/bin/sh")
		if sh, err := exec.LookPath("sh"); err == nil {
			out = append(out, sh)
		}
	}
	f := strings.Fields(cmdline)
	if len(f) == 0 {
		return out
	}
	name := f[0]
	if name == "!" && len(f) > 1 {
		name = f[1]
	}
	name = strings.TrimPrefix(name, "!")
	prog := ""
	if p, err := exec.LookPath(name); err == nil && filepath.IsAbs(p) {
		prog = p
	} else if filepath.IsAbs(name) {
		prog = name
	}
	if prog != "" {
		out = append(out, prog)
		out = append(out, interpreters(prog)...)
	}
	return out
}
