package pluginclient

import (
	pluginv1 "github.com/ramabana/ramabana-mcp/internal/gen/ramabana/plugin/v1"
	"github.com/ramabana/ramabana-mcp/sdk"
)

// The host side's conversions: what the host sends a plugin (the host
// context) and what it receives (a description, results and events). The
// plugin side's, the other way round, are in package sdk.

var (
	groupModeFromProto = map[pluginv1.GroupMode]sdk.GroupMode{
		pluginv1.GroupMode_GROUP_MODE_DEFAULT: sdk.ModeDefault,
		pluginv1.GroupMode_GROUP_MODE_OPT_IN:  sdk.ModeOptIn,
		pluginv1.GroupMode_GROUP_MODE_LEGACY:  sdk.ModeLegacy,
	}
	kindFromProto = map[pluginv1.ToolKind]sdk.Kind{
		pluginv1.ToolKind_TOOL_KIND_READ:  sdk.KindRead,
		pluginv1.ToolKind_TOOL_KIND_WRITE: sdk.KindWrite,
		pluginv1.ToolKind_TOOL_KIND_ACT:   sdk.KindAct,
	}
	taskFromProto = map[pluginv1.ToolTask]sdk.Task{
		pluginv1.ToolTask_TOOL_TASK_COMPLETION: sdk.TaskCompletion,
		pluginv1.ToolTask_TOOL_TASK_CONTEXT:    sdk.TaskContext,
		pluginv1.ToolTask_TOOL_TASK_EVALUATION: sdk.TaskEvaluation,
		pluginv1.ToolTask_TOOL_TASK_POST_TOOL:  sdk.TaskPostTool,
		pluginv1.ToolTask_TOOL_TASK_SKILL:      sdk.TaskSkill,
		pluginv1.ToolTask_TOOL_TASK_NONE:       sdk.TaskNone,
	}
	skillModeFromProto = map[pluginv1.SkillMode]sdk.SkillMode{
		pluginv1.SkillMode_SKILL_MODE_ALWAYS_ON: sdk.SkillAlwaysOn,
		pluginv1.SkillMode_SKILL_MODE_AUTO:      sdk.SkillAuto,
	}
	levelFromProto = map[pluginv1.LogLevel]sdk.LogLevel{
		pluginv1.LogLevel_LOG_LEVEL_DEBUG:   sdk.LevelDebug,
		pluginv1.LogLevel_LOG_LEVEL_INFO:    sdk.LevelInfo,
		pluginv1.LogLevel_LOG_LEVEL_WARNING: sdk.LevelWarning,
		pluginv1.LogLevel_LOG_LEVEL_ERROR:   sdk.LevelError,
	}
)

func hostToProto(h sdk.Host) *pluginv1.HostContext {
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

func descriptionFromProto(p *pluginv1.DescribeResponse) *sdk.Description {
	d := &sdk.Description{Name: p.GetName(), Version: p.GetVersion(), Description: p.GetDescription()}
	for _, pg := range p.GetGroups() {
		g := sdk.GroupSpec{
			Name:        pg.GetName(),
			Description: pg.GetDescription(),
			Mode:        groupModeFromProto[pg.GetMode()],
			ReplacedBy:  pg.GetReplacedBy(),
			LocalData:   pg.GetLocalData(),
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

// toolFromProto maps an unspecified task to completion. What this contract
// does not know is kept for the validator to refuse with a name: an
// unspecified or unknown kind stays KindUnspecified, an unknown task or
// skill mode becomes its enum number.
func toolFromProto(p *pluginv1.ToolSpec) sdk.ToolSpec {
	a := p.GetAnnotations()
	t := sdk.ToolSpec{
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
		t.Annotations = sdk.Annotations{
			ReadOnly:    a.ReadOnly,
			Destructive: a.Destructive,
			Idempotent:  a.Idempotent,
			OpenWorld:   a.OpenWorld,
		}
	}
	if t.Task == "" && p.GetTask() != pluginv1.ToolTask_TOOL_TASK_UNSPECIFIED {
		t.Task = sdk.Task(p.GetTask().String()) // a task of a newer contract: the validator names it and refuses the tool
	}
	if t.Task == "" {
		t.Task = sdk.TaskCompletion
	}
	if t.Mode == "" && p.GetMode() != pluginv1.SkillMode_SKILL_MODE_UNSPECIFIED {
		t.Mode = sdk.SkillMode(p.GetMode().String())
	}
	return t
}

func resultFromProto(p *pluginv1.Result) *sdk.Result {
	r := &sdk.Result{Structured: p.GetStructured(), IsError: p.GetIsError()}
	for _, pc := range p.GetContent() {
		switch k := pc.GetKind().(type) {
		case *pluginv1.Content_Image:
			r.Content = append(r.Content, sdk.Content{Image: &sdk.Image{Data: k.Image.GetData(), MIMEType: k.Image.GetMimeType()}})
		case *pluginv1.Content_Resource:
			res := k.Resource
			r.Content = append(r.Content, sdk.Content{Resource: &sdk.Resource{
				URI: res.GetUri(), MIMEType: res.GetMimeType(), Text: res.GetText(), Blob: res.GetBlob(),
			}})
		case *pluginv1.Content_Text:
			r.Content = append(r.Content, sdk.Content{Text: k.Text})
		}
	}
	for _, ch := range p.GetChanges() {
		r.Changes = append(r.Changes, sdk.FileChange{
			Path: ch.GetPath(), BeforeSHA256: ch.GetBeforeSha256(), AfterSHA256: ch.GetAfterSha256(),
			Before: ch.GetBefore(), After: ch.GetAfter(),
		})
	}
	return r
}
