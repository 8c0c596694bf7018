package skills

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// write creates root/dir/SKILL.md holding text and returns its path.
func write(t *testing.T, root, dir, text string) string {
	t.Helper()
	path := filepath.Join(root, dir, FileName)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func skillText(name, description string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\n---\n\n# " + name + "\n\nSteps.\n"
}

func names(ix *Index) []string {
	var out []string
	for _, s := range ix.List() {
		out = append(out, s.Name)
	}
	return out
}

func warningStrings(ws []Warning) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.String())
	}
	return out
}

func TestLoadAllFields(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	text := `---
name: pdf-forms
description: >
  Fill in PDF forms. Use when the user asks to complete,
  sign or flatten a PDF form.
license: Apache-2.0
compatibility: Needs python3 and the pypdf package
metadata:
  author: example-org
  version: "1.2"
  revision: 3
allowed-tools: Bash(python3:*) view_file  read_skill
x-unknown-key: ignored
---

# PDF forms

Run scripts/fill.py.
`
	path := write(t, root, "pdf-forms", text)
	ix, warnings := Load([]Root{{Dir: root, Source: Project}})
	if len(warnings) != 0 {
		t.Fatalf("warnings: %v", warnings)
	}
	got, ok := ix.Get("pdf-forms")
	if !ok {
		t.Fatal("pdf-forms not indexed")
	}
	want := Skill{
		Name:          "pdf-forms",
		Description:   "Fill in PDF forms. Use when the user asks to complete, sign or flatten a PDF form.",
		Source:        Project,
		Dir:           filepath.Join(root, "pdf-forms"),
		Path:          path,
		License:       "Apache-2.0",
		Compatibility: "Needs python3 and the pypdf package",
		AllowedTools:  "Bash(python3:*) view_file read_skill",
		Metadata:      map[string]string{"author": "example-org", "version": "1.2", "revision": "3"},
		Content:       text,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skill (-want +got):\n%s", diff)
	}
	if _, ok := ix.Get("pdf"); ok {
		t.Error("Get found a skill that does not exist")
	}
}

func TestLoadMalformed(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 65)
	tests := map[string]struct {
		dir, text string
		want      string // the warning's message
	}{
		"no front matter": {"plain", "# Just markdown\n", "skipped: " + ErrNoFrontMatter.Error()},
		"unterminated":    {"open", "---\nname: open\ndescription: d\n# body\n", "skipped: " + ErrNoFrontMatter.Error()},
		"empty front matter": {"empty", "---\n---\nbody\n",
			"skipped: front matter is empty: name and description are required"},
		"bad yaml": {"bad-yaml", "---\nname: bad-yaml\n\tdescription: tabbed\n---\n",
			"skipped: front matter is not valid YAML: line 3: found a tab character that violates indentation"},
		"metadata not strings": {"meta", "---\nname: meta\ndescription: d\nmetadata:\n  tags: [a, b]\n---\n",
			"skipped: front matter is not valid YAML: line 5: cannot unmarshal !!seq into string"},
		"missing name": {"anon", "---\ndescription: does things\n---\n", "skipped: name is missing"},
		"upper case name": {"Caps", skillText("Caps", "d"),
			`skipped: name "Caps" is invalid: use lowercase letters, digits and single hyphens, not at the start or end`},
		"double hyphen": {"a--b", skillText("a--b", "d"),
			`skipped: name "a--b" is invalid: use lowercase letters, digits and single hyphens, not at the start or end`},
		"leading hyphen": {"-lead", skillText("-lead", "d"),
			`skipped: name "-lead" is invalid: use lowercase letters, digits and single hyphens, not at the start or end`},
		"trailing hyphen": {"trail-", skillText("trail-", "d"),
			`skipped: name "trail-" is invalid: use lowercase letters, digits and single hyphens, not at the start or end`},
		"name too long": {long, skillText(long, "d"),
			`skipped: name "` + long + `" is 65 characters, more than 64`},
		"missing description": {"mute", "---\nname: mute\n---\n",
			"skipped: description is missing: say what the skill does and when to use it"},
		"blank description": {"blank", "---\nname: blank\ndescription: \"  \"\n---\n",
			"skipped: description is missing: say what the skill does and when to use it"},
		"description too long": {"wordy", skillText("wordy", strings.Repeat("é", 1025)),
			"skipped: description is 1025 characters, more than 1024"},
		"compatibility too long": {"compat", "---\nname: compat\ndescription: d\ncompatibility: " + strings.Repeat("x", 501) + "\n---\n",
			"skipped: compatibility is 501 characters, more than 500"},
		"name differs from folder": {"folder-name", skillText("other-name", "d"),
			`skipped: name "other-name" does not match the folder name "folder-name": rename one to match the other`},
		"allowed-tools a map": {"tools", "---\nname: tools\ndescription: d\nallowed-tools: {a: b}\n---\n",
			"skipped: front matter is not valid YAML: line 4: allowed-tools must be a space-separated string"},
		"not utf-8": {"latin", "---\nname: latin\ndescription: caf\xe9\n---\n", "skipped: not UTF-8 text"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			path := write(t, root, tc.dir, tc.text)
			write(t, root, "good", skillText("good", "A skill that loads."))
			ix, warnings := Load([]Root{{Dir: root, Source: User}})
			want := []Warning{{Path: path, Message: tc.want}}
			if diff := cmp.Diff(want, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"good"}, names(ix)); diff != "" {
				t.Errorf("skills (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadFileChecks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "good", skillText("good", "Loads."))

	huge := skillText("huge", "Too big.") + strings.Repeat("x", MaxFileSize)
	hugePath := write(t, root, "huge", huge)

	// A SKILL.md that is itself a link is refused, even to a valid file.
	elsewhere := write(t, t.TempDir(), "linked-file", skillText("linked-file", "Linked."))
	if err := os.MkdirAll(filepath.Join(root, "linked-file"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(root, "linked-file", FileName)); err != nil {
		t.Fatal(err)
	}
	// A folder named SKILL.md is not a file.
	if err := os.MkdirAll(filepath.Join(root, "dir-file", FileName), 0o755); err != nil {
		t.Fatal(err)
	}
	// A linked skill folder is fine.
	other := t.TempDir()
	write(t, other, "shared", skillText("shared", "Linked folder."))
	if err := os.Symlink(filepath.Join(other, "shared"), filepath.Join(root, "shared")); err != nil {
		t.Fatal(err)
	}
	// A broken link is reported; a folder without SKILL.md and a stray file are not.
	if err := os.Symlink(filepath.Join(other, "gone"), filepath.Join(root, "gone")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "README.md"), []byte("hi"), 0o644); err != nil {
		t.Fatal(err)
	}

	ix, warnings := Load([]Root{{Dir: root, Source: Project}, {Dir: filepath.Join(root, "missing"), Source: User}})
	want := []string{
		filepath.Join(root, "dir-file", FileName) + ": skipped: SKILL.md is not a regular file (a folder)",
		filepath.Join(root, "gone") + ": skipped: broken link: no such file or directory",
		hugePath + ": skipped: SKILL.md is " + strconv.Itoa(len(huge)) + " bytes, more than the 262144 allowed",
		filepath.Join(root, "linked-file", FileName) + ": skipped: SKILL.md is not a regular file (a symbolic link)",
	}
	if diff := cmp.Diff(want, warningStrings(warnings)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"good", "shared"}, names(ix)); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	if s, _ := ix.Get("shared"); s.Dir != filepath.Join(root, "shared") {
		t.Errorf("linked skill Dir = %q, want the path through the root", s.Dir)
	}
}

func TestLoadRootNotAFolder(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "skills")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ix, warnings := Load([]Root{{Dir: file, Source: Config}})
	want := []string{file + ": cannot list config skills: not a directory"}
	if diff := cmp.Diff(want, warningStrings(warnings)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if len(ix.List()) != 0 {
		t.Errorf("skills: %v", names(ix))
	}
}

func TestLoadLineEndings(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"crlf":     "---\r\nname: crlf\r\ndescription: Windows line endings.\r\nmetadata:\r\n  k: v\r\n---\r\n\r\n# Body\r\n",
		"bom":      "\ufeff---\nname: bom\ndescription: Starts with a byte order mark.\n---\nbody\n",
		"bom-crlf": "\ufeff---  \r\nname: bom-crlf\r\ndescription: Both.\r\n---\t\r\nbody\r\n",
	}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			write(t, root, name, text)
			ix, warnings := Load([]Root{{Dir: root, Source: User}})
			if len(warnings) != 0 {
				t.Fatalf("warnings: %v", warnings)
			}
			s, ok := ix.Get(name)
			if !ok {
				t.Fatalf("%s not indexed", name)
			}
			if strings.ContainsAny(s.Description, "\r\ufeff") {
				t.Errorf("description %q keeps a CR or BOM", s.Description)
			}
			if want := strings.TrimPrefix(text, "\ufeff"); s.Content != want {
				t.Errorf("content = %q, want %q", s.Content, want)
			}
		})
	}
}

func TestLoadPrecedence(t *testing.T) {
	t.Parallel()
	project, project2, config, user := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	pDeploy := write(t, project, "deploy", skillText("deploy", "Project deploy."))
	p2Deploy := write(t, project2, "deploy", skillText("deploy", "Second project deploy."))
	p2Lint := write(t, project2, "lint", skillText("lint", "Second project lint."))
	cLint := write(t, config, "lint", skillText("lint", "Config lint."))
	cDeploy := write(t, config, "deploy", skillText("deploy", "Config deploy."))
	uDeploy := write(t, user, "deploy", skillText("deploy", "User deploy."))
	uNotes := write(t, user, "notes", skillText("notes", "User notes."))
	uLint := write(t, user, "lint", skillText("lint", "User lint."))

	// The user root comes first, yet the project roots win; of the two
	// project roots, the one listed first wins.
	ix, warnings := Load([]Root{
		{Dir: user, Source: User},
		{Dir: project, Source: Project},
		{Dir: config, Source: Config},
		{Dir: project2, Source: Project},
		{Dir: project, Source: Project}, // listed twice: no warning
	})
	got := map[string]string{}
	for _, s := range ix.List() {
		got[s.Name] = s.Description + " " + s.Path
	}
	want := map[string]string{
		"deploy": "Project deploy. " + pDeploy,
		"lint":   "Second project lint. " + p2Lint,
		"notes":  "User notes. " + uNotes,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	wantWarnings := []Warning{
		{p2Deploy, `project skill "deploy" at ` + pDeploy + " shadows the project skill at " + p2Deploy},
		{cDeploy, `project skill "deploy" at ` + pDeploy + " shadows the config skill at " + cDeploy},
		{cLint, `project skill "lint" at ` + p2Lint + " shadows the config skill at " + cLint},
		{uDeploy, `project skill "deploy" at ` + pDeploy + " shadows the user skill at " + uDeploy},
		{uLint, `project skill "lint" at ` + p2Lint + " shadows the user skill at " + uLint},
	}
	if diff := cmp.Diff(wantWarnings, warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestParseYAMLLine(t *testing.T) {
	t.Parallel()
	_, err := Parse("---\nname: x\ndescription: d\n  bad: indent\n---\n")
	if err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("Parse error = %v, want one naming line 4 of the file", err)
	}
}

// TestProjectSkillsStayInTheServedFolder: a hostile repository links skill
// folders, or its whole .agents folder, to skills elsewhere; with Within,
// none of them is read, and each is a warning. Links inside stay fine.
func TestProjectSkillsStayInTheServedFolder(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	served, outside := filepath.Join(base, "served"), filepath.Join(base, "outside")
	write(t, outside, "private", skillText("private", "Outside the served folder."))
	write(t, outside, "relative", skillText("relative", "Outside the served folder."))
	write(t, served, "kept/real", skillText("real", "Inside."))
	write(t, served, "kept/abs", skillText("abs", "Inside, through an absolute link."))
	dir := filepath.Join(served, ".agents", "skills")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"private":  filepath.Join(outside, "private"), // absolute, out
		"relative": "../../../outside/relative",       // relative, out
		"abs":      filepath.Join(served, "kept/abs"), // absolute, in: os.Root refuses it too
		"real":     "../../kept/real",                 // relative, in
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	ix, warnings := Load([]Root{{Dir: dir, Source: Project, Within: served}})
	if got := names(ix); len(got) != 1 || got[0] != "real" {
		t.Errorf("skills %v, want only real", got)
	}
	for _, s := range ix.List() {
		if strings.Contains(s.Content, "Outside") {
			t.Errorf("read a skill from outside: %+v", s)
		}
	}
	var outs int
	for _, w := range warningStrings(warnings) {
		if strings.Contains(w, "leaves "+served) || strings.Contains(w, "broken link") {
			outs++
		}
	}
	if outs < 3 {
		t.Errorf("want a warning for each link out (and the absolute link in), got %q", warningStrings(warnings))
	}

	// The whole .agents folder linked out.
	served2 := filepath.Join(base, "served2")
	if err := os.MkdirAll(served2, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(served2, ".agents")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(outside, "private"), filepath.Join(outside, "skills")); err != nil {
		t.Fatal(err)
	}
	ix, _ = Load([]Root{{Dir: filepath.Join(served2, ".agents", "skills"), Source: Project, Within: served2}})
	if got := names(ix); len(got) != 0 {
		t.Errorf("skills %v read through a linked .agents folder", got)
	}
}
