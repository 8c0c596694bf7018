"""ramabana-plugin-{{NAME}}: a ramabana-mcp plugin, one tool group served over
gRPC to the ramabana-mcp server that starts it.

Each tool is a typed function: its parameters (and their hints) are the
input schema a model sees, its docstring the description. Besides tool,
the toolbox has context, evaluation, post_tool, skill, skill_text and none
for the agent tasks; a parameter hinted rp.Call gets the call (host
context, call.roots for paths, progress, logs, cancellation). The guide:
docs/plugins-python.md in the ramabana-mcp repository.
"""

from typing import Annotated

import ramabana_plugin as rp

box = rp.Toolbox("{{NAME}}", version="0.1.0", description="Greets people (a new plugin).")


@box.tool(kind=rp.READ, title="Greet")
def {{IDENT}}_greet(name: Annotated[str, "who to greet"]) -> str:
    """Greet someone by name."""
    if not name.strip():
        raise rp.ToolError("name is empty: say who to greet")
    return "Hello, %s!" % name


if __name__ == "__main__":
    rp.serve(box)
