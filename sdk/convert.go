package sdk

import (
	pluginv1 "github.com/ramabana/ramabana-mcp/internal/gen/ramabana/plugin/v1"
)

// The plugin side's conversions between the generated protobuf types and
// the plain Go types: what a plugin receives (the host context) and what it
// sends (its description, results and events). The host side's, the other
// way round, are in internal/pluginclient.

func hostFromProto(p *pluginv1.HostContext) Host {
	return Host{
		Roots:       p.GetRoots(),
		ReadOutside: p.GetReadOutside(),
		Web:         p.GetWeb(),
		Write:       p.GetWrite(),
		Commands:    p.GetCommands(),
		NoSandbox:   p.GetNoSandbox(),
		ConfigDir:   p.GetConfigDir(),
		HostVersion: p.GetHostVersion(),
	}
}

func descriptionToProto(d *Description) *pluginv1.DescribeResponse {
	out := &pluginv1.DescribeResponse{Name: d.Name, Version: d.Version, Description: d.Description}
	for _, g := range d.Groups {
		pg := &pluginv1.Group{
			Name:        g.Name,
			Description: g.Description,
			Mode:        groupModeToProto[g.Mode],
			ReplacedBy:  g.ReplacedBy,
			LocalData:   g.LocalData,
		}
		for _, t := range g.Tools {
			pg.Tools = append(pg.Tools, toolToProto(t))
		}
		out.Groups = append(out.Groups, pg)
	}
	return out
}

var (
	groupModeToProto = map[GroupMode]pluginv1.GroupMode{
		ModeDefault: pluginv1.GroupMode_GROUP_MODE_DEFAULT,
		ModeOptIn:   pluginv1.GroupMode_GROUP_MODE_OPT_IN,
		ModeLegacy:  pluginv1.GroupMode_GROUP_MODE_LEGACY,
	}

	kindToProto = map[Kind]pluginv1.ToolKind{
		KindUnspecified: pluginv1.ToolKind_TOOL_KIND_UNSPECIFIED,
		KindRead:        pluginv1.ToolKind_TOOL_KIND_READ,
		KindWrite:       pluginv1.ToolKind_TOOL_KIND_WRITE,
		KindAct:         pluginv1.ToolKind_TOOL_KIND_ACT,
	}

	taskToProto = map[Task]pluginv1.ToolTask{
		TaskCompletion: pluginv1.ToolTask_TOOL_TASK_COMPLETION,
		TaskContext:    pluginv1.ToolTask_TOOL_TASK_CONTEXT,
		TaskEvaluation: pluginv1.ToolTask_TOOL_TASK_EVALUATION,
		TaskPostTool:   pluginv1.ToolTask_TOOL_TASK_POST_TOOL,
		TaskSkill:      pluginv1.ToolTask_TOOL_TASK_SKILL,
		TaskNone:       pluginv1.ToolTask_TOOL_TASK_NONE,
	}

	skillModeToProto = map[SkillMode]pluginv1.SkillMode{
		SkillAlwaysOn: pluginv1.SkillMode_SKILL_MODE_ALWAYS_ON,
		SkillAuto:     pluginv1.SkillMode_SKILL_MODE_AUTO,
	}

	levelToProto = map[LogLevel]pluginv1.LogLevel{
		LevelDebug:   pluginv1.LogLevel_LOG_LEVEL_DEBUG,
		LevelInfo:    pluginv1.LogLevel_LOG_LEVEL_INFO,
		LevelWarning: pluginv1.LogLevel_LOG_LEVEL_WARNING,
		LevelError:   pluginv1.LogLevel_LOG_LEVEL_ERROR,
	}
)

func toolToProto(t ToolSpec) *pluginv1.ToolSpec {
	return &pluginv1.ToolSpec{
		Name:         t.Name,
		Title:        t.Title,
		Description:  t.Description,
		InputSchema:  t.InputSchema,
		OutputSchema: t.OutputSchema,
		Kind:         kindToProto[t.Kind],
		Annotations: &pluginv1.Annotations{
			ReadOnly:    t.Annotations.ReadOnly,
			Destructive: t.Annotations.Destructive,
			Idempotent:  t.Annotations.Idempotent,
			OpenWorld:   t.Annotations.OpenWorld,
		},
		Task:          taskToProto[t.EffectiveTask()],
		AsUserMessage: t.AsUserMessage,
		Mode:          skillModeToProto[t.Mode],
	}
}

func resultToProto(r *Result) *pluginv1.Result {
	out := &pluginv1.Result{Structured: r.Structured, IsError: r.IsError}
	for _, c := range r.Content {
		pc := &pluginv1.Content{}
		switch {
		case c.Image != nil:
			pc.Kind = &pluginv1.Content_Image{Image: &pluginv1.Image{Data: c.Image.Data, MimeType: c.Image.MIMEType}}
		case c.Resource != nil:
			pc.Kind = &pluginv1.Content_Resource{Resource: &pluginv1.EmbeddedResource{
				Uri: c.Resource.URI, MimeType: c.Resource.MIMEType, Text: c.Resource.Text, Blob: c.Resource.Blob,
			}}
		default:
			pc.Kind = &pluginv1.Content_Text{Text: c.Text}
		}
		out.Content = append(out.Content, pc)
	}
	for _, ch := range r.Changes {
		out.Changes = append(out.Changes, &pluginv1.FileChange{
			Path: ch.Path, BeforeSha256: ch.BeforeSHA256, AfterSha256: ch.AfterSHA256,
			Before: ch.Before, After: ch.After,
		})
	}
	return out
}
