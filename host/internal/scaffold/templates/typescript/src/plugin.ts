// The {{NAME}} plugin: its toolbox, which src/main.ts serves and the tests call.

import { Toolbox, ToolError, tool, z } from "../ramabana/index.js";

/** newToolbox is the plugin: its name, its group and the group's tools. */
export function newToolbox(): Toolbox {
  return new Toolbox("{{NAME}}", { version: "0.1.0", description: "Greets people (a new plugin)." }).addGroup(
    { name: "{{NAME}}", description: "Greets people." },
    tool({
      name: "{{IDENT}}_greet",
      title: "Greet",
      description: "Greet someone by name.",
      kind: "read",
      input: z.object({ name: z.string().describe("who to greet") }),
      handler: ({ name }) => {
        if (name === "") throw new ToolError("name is empty: say who to greet");
        return `Hello, ${name}!`;
      },
    }),
  );
}
