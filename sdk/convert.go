package sdk

import (
	pluginv1 "github.com/ramabana/ramabana-mcp/gen/ramabana/plugin/v1"
)

// Conversions between the generated protobuf types and the plain Go types.
// Nothing outside this package sees the generated types.

func hostToProto(h Host) *pluginv1.HostContext {
	return &pluginv1.HostContext{
		Roots:       h.Roots,
		ReadOutside: h.ReadOutside,
		Web:         h.Web,
		Write:       h.Write,
		Commands:    h.Commands,
		NoSandbox:   h.NoSandbox,
		ConfigDir:   h.ConfigDir,
		HostVersion: h.HostVersion,
	}
}

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
		}
		for _, t := range g.Tools {
			pg.Tools = append(pg.Tools, toolToProto(t))
		}
		out.Groups = append(out.Groups, pg)
	}
	return out
}

func descriptionFromProto(p *pluginv1.DescribeResponse) *Description {
	d := &Description{Name: p.GetName(), Version: p.GetVersion(), Description: p.GetDescription()}
	for _, pg := range p.GetGroups() {
		g := GroupSpec{
			Name:        pg.GetName(),
			Description: pg.GetDescription(),
			Mode:        groupModeFromProto[pg.GetMode()],
			ReplacedBy:  pg.GetReplacedBy(),
		}
		if g.Name == "" {
			g.Name = d.Name
		}
		for _, pt := range pg.GetTools() {
			g.Tools = append(g.Tools, toolFromProto(pt))
		}
		d.Groups = append(d.Groups, g)
	}
	return d
}

var (
	groupModeToProto = map[GroupMode]pluginv1.GroupMode{
		ModeDefault: pluginv1.GroupMode_GROUP_MODE_DEFAULT,
		ModeOptIn:   pluginv1.GroupMode_GROUP_MODE_OPT_IN,
		ModeLegacy:  pluginv1.GroupMode_GROUP_MODE_LEGACY,
	}
	groupModeFromProto = invert(groupModeToProto)

	kindToProto = map[Kind]pluginv1.ToolKind{
		KindUnspecified: pluginv1.ToolKind_TOOL_KIND_UNSPECIFIED,
		KindRead:        pluginv1.ToolKind_TOOL_KIND_READ,
		KindWrite:       pluginv1.ToolKind_TOOL_KIND_WRITE,
		KindAct:         pluginv1.ToolKind_TOOL_KIND_ACT,
	}
	kindFromProto = invert(kindToProto)

	taskToProto = map[Task]pluginv1.ToolTask{
		TaskCompletion: pluginv1.ToolTask_TOOL_TASK_COMPLETION,
		TaskContext:    pluginv1.ToolTask_TOOL_TASK_CONTEXT,
		TaskEvaluation: pluginv1.ToolTask_TOOL_TASK_EVALUATION,
		TaskPostTool:   pluginv1.ToolTask_TOOL_TASK_POST_TOOL,
		TaskSkill:      pluginv1.ToolTask_TOOL_TASK_SKILL,
		TaskNone:       pluginv1.ToolTask_TOOL_TASK_NONE,
	}
	taskFromProto = invert(taskToProto)

	skillModeToProto = map[SkillMode]pluginv1.SkillMode{
		SkillAlwaysOn: pluginv1.SkillMode_SKILL_MODE_ALWAYS_ON,
		SkillAuto:     pluginv1.SkillMode_SKILL_MODE_AUTO,
	}
	skillModeFromProto = invert(skillModeToProto)

	levelToProto = map[LogLevel]pluginv1.LogLevel{
		LevelDebug:   pluginv1.LogLevel_LOG_LEVEL_DEBUG,
		LevelInfo:    pluginv1.LogLevel_LOG_LEVEL_INFO,
		LevelWarning: pluginv1.LogLevel_LOG_LEVEL_WARNING,
		LevelError:   pluginv1.LogLevel_LOG_LEVEL_ERROR,
	}
	levelFromProto = invert(levelToProto)
)

func invert[K, V comparable](m map[K]V) map[V]K {
	out := make(map[V]K, len(m))
	for k, v := range m {
		out[v] = k
	}
	return out
}

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

// toolFromProto maps an unspecified task to completion; an unspecified or
// unknown kind stays KindUnspecified, for the host to refuse.
func toolFromProto(p *pluginv1.ToolSpec) ToolSpec {
	a := p.GetAnnotations()
	t := ToolSpec{
		Name:          p.GetName(),
		Title:         p.GetTitle(),
		Description:   p.GetDescription(),
		InputSchema:   p.GetInputSchema(),
		OutputSchema:  p.GetOutputSchema(),
		Kind:          kindFromProto[p.GetKind()],
		Task:          taskFromProto[p.GetTask()],
		AsUserMessage: p.GetAsUserMessage(),
		Mode:          skillModeFromProto[p.GetMode()],
	}
	if a != nil {
		t.Annotations = Annotations{
			ReadOnly:    a.ReadOnly,
			Destructive: a.Destructive,
			Idempotent:  a.Idempotent,
			OpenWorld:   a.OpenWorld,
		}
	}
	if t.Task == "" {
		t.Task = TaskCompletion
	}
	return t
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

func resultFromProto(p *pluginv1.Result) *Result {
	r := &Result{Structured: p.GetStructured(), IsError: p.GetIsError()}
	for _, pc := range p.GetContent() {
		switch k := pc.GetKind().(type) {
		case *pluginv1.Content_Image:
			r.Content = append(r.Content, Content{Image: &Image{Data: k.Image.GetData(), MIMEType: k.Image.GetMimeType()}})
		case *pluginv1.Content_Resource:
			res := k.Resource
			r.Content = append(r.Content, Content{Resource: &Resource{
				URI: res.GetUri(), MIMEType: res.GetMimeType(), Text: res.GetText(), Blob: res.GetBlob(),
			}})
		case *pluginv1.Content_Text:
			r.Content = append(r.Content, Content{Text: k.Text})
		}
	}
	for _, ch := range p.GetChanges() {
		r.Changes = append(r.Changes, FileChange{
			Path: ch.GetPath(), BeforeSHA256: ch.GetBeforeSha256(), AfterSHA256: ch.GetAfterSha256(),
			Before: ch.GetBefore(), After: ch.GetAfter(),
		})
	}
	return r
}
