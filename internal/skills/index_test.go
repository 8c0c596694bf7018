package skills

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAddPluginSkill(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	path := write(t, root, "review", skillText("review", "File review."))
	ix, warnings := Load([]Root{{Dir: root, Source: User}})
	if len(warnings) != 0 {
		t.Fatal(warnings)
	}

	tests := []struct {
		skill   Skill
		want    Warning
		wantAdd bool
	}{
		{Skill{Name: "git-history", Description: "Explain history.", Source: Project, Content: "---\n..."}, Warning{}, true},
		{Skill{Name: "review", Description: "Plugin review."},
			Warning{Message: `user skill "review" at ` + path + " shadows the plugin skill at (served by a plugin)"}, false},
		{Skill{Name: "git-history", Description: "Another plugin's.", Path: "plugin:other"},
			Warning{Path: "plugin:other", Message: `plugin skill "git-history" at (served by a plugin) shadows the plugin skill at plugin:other`}, false},
		{Skill{Name: "Bad Name", Description: "x"},
			Warning{Message: `plugin skill skipped: name "Bad Name" is invalid: use lowercase letters, digits and single hyphens, not at the start or end`}, false},
		{Skill{Name: "nodesc"}, Warning{Message: "plugin skill skipped: description is missing: say what the skill does and when to use it"}, false},
	}
	for _, tc := range tests {
		w, added := ix.Add(tc.skill)
		if added != tc.wantAdd {
			t.Errorf("Add(%q) added = %v, want %v", tc.skill.Name, added, tc.wantAdd)
		}
		if diff := cmp.Diff(tc.want, w); diff != "" {
			t.Errorf("Add(%q) warning (-want +got):\n%s", tc.skill.Name, diff)
		}
	}
	s, _ := ix.Get("git-history")
	if s.Source != Plugin || s.Description != "Explain history." {
		t.Errorf("git-history = %+v, want the first plugin's, with source plugin", s)
	}
	if s, _ := ix.Get("review"); s.Source != User {
		t.Errorf("review source = %s, want the user file to win", s.Source)
	}
}

func TestMarkdown(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "zeta", skillText("zeta", "Last one."))
	write(t, root, "alpha", "---\nname: alpha\ndescription: |\n  First line.\n  Second line.\n---\n")
	ix, _ := Load([]Root{{Dir: root, Source: Project}, {Dir: filepath.Join(root, "none"), Source: User}})
	ix.Add(Skill{Name: "from-plugin", Description: "Served by a plugin."})
	want := "Skills: read one in full with the resource skill://{name} before doing the task it describes.\n" +
		"\n" +
		"- alpha: First line. Second line. (project)\n" +
		"- from-plugin: Served by a plugin. (plugin)\n" +
		"- zeta: Last one. (project)\n"
	if diff := cmp.Diff(want, ix.Markdown()); diff != "" {
		t.Errorf("Markdown (-want +got):\n%s", diff)
	}

	empty := "Skills: read one in full with the resource skill://{name} before doing the task it describes.\n\nNo skills are installed.\n"
	if diff := cmp.Diff(empty, NewIndex().Markdown()); diff != "" {
		t.Errorf("empty Markdown (-want +got):\n%s", diff)
	}
}
