// Package skills discovers Agent Skills: folders that each hold a SKILL.md
// file, YAML front matter (name, description and the optional fields of the
// Agent Skills format) followed by a markdown body.
//
// The host calls [Load] with the folders that hold skill folders, in the
// order it searches them (each served root's .agents/skills, the config
// folder's skills, ~/.agents/skills), then [Index.Add] for each skill a
// plugin serves. Load never fails: a missing folder is skipped, and a
// malformed SKILL.md or a skill shadowed by another of the same name becomes
// a [Warning] for the host's log. The [Index] answers the ramabana://skills
// resource ([Index.Markdown]) and skill://{name} ([Index.Get]).
//
// Precedence, highest first: [Project], [Config], [User], [Plugin]; among
// folders of the same source, the one listed first wins.
package skills
