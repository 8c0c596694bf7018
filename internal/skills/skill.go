package skills

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Source says where a skill was found; it decides precedence.
type Source string

// The sources, highest precedence first.
const (
	Project Source = "project" // <served root>/.agents/skills
	Config  Source = "config"  // <config dir>/skills
	User    Source = "user"    // ~/.agents/skills
	Plugin  Source = "plugin"  // served by a plugin's skill tool
)

// rank orders sources by precedence: lower wins. Unknown sources rank
// between User and Plugin.
func (s Source) rank() int {
	switch s {
	case Project:
		return 0
	case Config:
		return 1
	case User:
		return 2
	case Plugin:
		return 4
	}
	return 3
}

// Skill is one parsed and validated skill.
type Skill struct {
	Name        string // equal to the folder's name for file skills
	Description string // what the skill does and when to use it
	Source      Source
	Dir         string // the skill's folder, as reached from its root; empty for plugin skills unless the host sets it
	Path        string // the SKILL.md file; empty for plugin skills unless the host sets it

	License       string
	Compatibility string
	AllowedTools  string // space-separated, as in the front matter
	Metadata      map[string]string

	// Content is the whole SKILL.md text, front matter included, with a
	// leading byte order mark removed; line endings are kept.
	Content string
}

// Limits of the Agent Skills format.
const (
	MaxNameLen          = 64
	MaxDescriptionLen   = 1024
	MaxCompatibilityLen = 500
	// MaxFileSize is the largest SKILL.md Load reads.
	MaxFileSize = 256 << 10
)

var nameRE = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// ErrNoFrontMatter is wrapped by Parse when the text does not start with a
// front matter block between "---" lines.
var ErrNoFrontMatter = errors.New("no front matter: SKILL.md must start with a line \"---\", then YAML, then a line \"---\"")

// frontMatter is the YAML header. Unknown keys are ignored, so skills written
// for other agents (which add their own keys) still load.
type frontMatter struct {
	Name          string            `yaml:"name"`
	Description   string            `yaml:"description"`
	License       string            `yaml:"license"`
	Compatibility string            `yaml:"compatibility"`
	Metadata      map[string]string `yaml:"metadata"`
	AllowedTools  toolList          `yaml:"allowed-tools"`
}

// toolList accepts the format's space-separated string and, leniently, a
// YAML list of tool names, which some agents write.
type toolList string

func (t *toolList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*t = toolList(n.Value)
		return nil
	case yaml.SequenceNode:
		var list []string
		if err := n.Decode(&list); err != nil {
			return err
		}
		*t = toolList(strings.Join(list, " "))
		return nil
	}
	return fmt.Errorf("line %d: allowed-tools must be a space-separated string", n.Line)
}

// Parse parses the text of a SKILL.md and validates its front matter. It
// does not check the name against a folder (Load does) and leaves Source,
// Dir and Path empty. The error says what is wrong in words a skill author
// can act on.
func Parse(text string) (Skill, error) {
	text = strings.TrimPrefix(text, "\ufeff")
	if !utf8.ValidString(text) {
		return Skill{}, errors.New("not UTF-8 text")
	}
	header, ok := splitFrontMatter(text)
	if !ok {
		return Skill{}, ErrNoFrontMatter
	}
	var fm frontMatter
	dec := yaml.NewDecoder(strings.NewReader(header))
	if err := dec.Decode(&fm); err != nil {
		if errors.Is(err, io.EOF) || strings.TrimSpace(header) == "" {
			return Skill{}, errors.New("front matter is empty: name and description are required")
		}
		return Skill{}, fmt.Errorf("front matter is not valid YAML: %s", yamlMessage(err))
	}
	s := Skill{
		Name:          fm.Name,
		Description:   strings.TrimSpace(fm.Description),
		License:       strings.TrimSpace(fm.License),
		Compatibility: strings.TrimSpace(fm.Compatibility),
		AllowedTools:  strings.Join(strings.Fields(string(fm.AllowedTools)), " "),
		Metadata:      fm.Metadata,
		Content:       text,
	}
	if err := s.validate(); err != nil {
		return Skill{}, err
	}
	return s, nil
}

// validate checks the fields the format constrains.
func (s Skill) validate() error {
	if err := ValidName(s.Name); err != nil {
		return err
	}
	switch n := utf8.RuneCountInString(s.Description); {
	case n == 0:
		return errors.New("description is missing: say what the skill does and when to use it")
	case n > MaxDescriptionLen:
		return fmt.Errorf("description is %d characters, more than %d", n, MaxDescriptionLen)
	}
	if n := utf8.RuneCountInString(s.Compatibility); n > MaxCompatibilityLen {
		return fmt.Errorf("compatibility is %d characters, more than %d", n, MaxCompatibilityLen)
	}
	return nil
}

// ValidName reports whether name is a valid skill name: 1–64 lowercase ASCII
// letters, digits and single hyphens, not starting or ending with a hyphen.
func ValidName(name string) error {
	switch {
	case name == "":
		return errors.New("name is missing")
	case len(name) > MaxNameLen:
		return fmt.Errorf("name %q is %d characters, more than %d", name, len(name), MaxNameLen)
	case !nameRE.MatchString(name):
		return fmt.Errorf("name %q is invalid: use lowercase letters, digits and single hyphens, not at the start or end", name)
	}
	return nil
}

// splitFrontMatter returns the YAML between the opening "---" line and the
// next "---" line. Lines may end in CRLF and the markers may carry trailing
// spaces.
func splitFrontMatter(text string) (string, bool) {
	first, rest, ok := strings.Cut(text, "\n")
	if !ok || !isMarker(first) {
		return "", false
	}
	var header strings.Builder
	for rest != "" {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if isMarker(line) {
			return header.String(), true
		}
		header.WriteString(strings.TrimSuffix(line, "\r"))
		header.WriteByte('\n')
	}
	return "", false
}

func isMarker(line string) bool {
	return strings.TrimRight(line, " \t\r") == "---"
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

// yamlMessage shortens the YAML library's messages ("yaml: line 2: ...") and
// turns their line numbers, which count from the line after the opening
// "---", into line numbers of the file.
func yamlMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.ReplaceAll(msg, "unmarshal errors:\n  ", "")
	msg = yamlLineRE.ReplaceAllStringFunc(msg, func(m string) string {
		n, _ := strconv.Atoi(strings.TrimPrefix(m, "line "))
		return "line " + strconv.Itoa(n+1)
	})
	return strings.Join(strings.Fields(msg), " ")
}
