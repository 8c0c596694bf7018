// @ramabana/plugin: write a ramabana-mcp plugin (a tool group served over
// gRPC) in TypeScript. A whole plugin:
//
//   import { Toolbox, serve, tool, z } from "./ramabana/index.js";
//
//   const box = new Toolbox("hello", { version: "0.1.0", description: "Greets people." });
//   box.addGroup({ name: "hello", description: "Say hello." },
//     tool({
//       name: "greet", description: "Greet someone by name.", kind: "read",
//       input: z.object({ name: z.string().describe("who to greet") }),
//       handler: ({ name }) => `Hello, ${name}!`,
//     }));
//   serve(box);
//
// docs/plugins-typescript.md is the guide; the test harness is testing.js.

export { z } from "zod";
export { Call, type CallEvent } from "./call.js";
export { log, parseLogLevel, setLogLevel, type LogLevel, type LogAttrs } from "./log.js";
export {
  ToolError,
  text,
  image,
  resource,
  textResult,
  errorResult,
  resultText,
  fileChange,
  sha256Hex,
  MAX_DIFF_CONTENT,
  type Content,
  type FileChange,
  type Result,
} from "./result.js";
export { Roots, Target, OutsideError, PathError, type ReadOptions, type WriteOptions } from "./roots.js";
export { inputSchemaOf, outputSchemaOf, saysBounds, type ObjectSchema } from "./schema.js";
export { serve, atExit, exit, childEnv, environmentError, type ServeOptions } from "./serve.js";
export { createServer, type ServerOptions } from "./service.js";
export { parseSkill, skillName, skillTextError, type SkillInfo } from "./skill.js";
export { Toolbox, UnknownToolError, type ToolboxOptions, type CallContext } from "./toolbox.js";
export {
  tool,
  noneTool,
  contextTool,
  evaluationTool,
  postTool,
  skillTool,
  skillText,
  Evaluation,
  evaluationSchema,
  type Tool,
  type Args,
  type BaseOptions,
  type ToolOptions,
  type ContextOptions,
  type EvaluationOptions,
  type PostOptions,
  type SkillOptions,
  type SkillTextOptions,
} from "./tools.js";
export {
  hostContext,
  type Annotations,
  type Description,
  type DescribedGroup,
  type GroupMode,
  type GroupSpec,
  type HostContext,
  type JsonSchema,
  type Kind,
  type SkillMode,
  type Task,
  type ToolSpec,
} from "./types.js";
export { descriptionError, taskError, toolSpecError, validName, validToolName } from "./validate.js";
