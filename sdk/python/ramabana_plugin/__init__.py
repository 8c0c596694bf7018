"""ramabana_plugin: write ramabana-mcp tool plugins in Python.

    from typing import Annotated
    import ramabana_plugin as rp

    box = rp.Toolbox("hello", version="0.1.0", description="Greets people.")

    @box.tool(kind=rp.READ)
    def greet(name: Annotated[str, "who to greet"]) -> str:
        "Greet someone by name."
        return "Hello, %s!" % name

    if __name__ == "__main__":
        rp.serve(box)

The pieces, one module each (all in this one folder, so it can be vendored
by copying it):

- toolbox: Toolbox, its groups and the tool decorators (tool, context,
  evaluation, post_tool, skill, skill_text, none), Call.
- schema: input and output JSON Schemas from type hints; Field.
- results: Result, Text, Image, Resource, FileChange, Evaluation, ToolError, Host.
- roots: Roots, confining paths to the served folders.
- server: serve(box), the plugin process; at_exit, child_env.
- testing: the harness (connect, launch) for tests.
- bundle: `python3 -m ramabana_plugin bundle`, one executable file.
- checks: the host's rules for names, schemas, tasks and skills.

Importing the package needs only the standard library; serving and the
harness need grpcio and protobuf. docs/plugins-python.md is the guide.
"""

from .checks import SpecError
from .results import (Evaluation, FileChange, Host, Image, Resource, Result, Text, ToolError, error_result,
                      text_result)
from .roots import OutsideError, PathError, Roots, RootsError
from .schema import Field
from .server import at_exit, child_env, serve
from .toolbox import (ACT, ALWAYS_ON, AUTO, READ, WRITE, Annotations, Call, Cancelled, Group, GroupMode, Kind,
                      SkillMode, Tool, Toolbox, ToolSpec, UnknownTool)

__version__ = "0.1.0"

__all__ = [
    "Toolbox", "Group", "Tool", "ToolSpec", "Call", "Cancelled", "UnknownTool", "SpecError",
    "Kind", "READ", "WRITE", "ACT", "GroupMode", "SkillMode", "ALWAYS_ON", "AUTO", "Annotations", "Field",
    "Result", "Text", "Image", "Resource", "FileChange", "Evaluation", "ToolError", "Host",
    "text_result", "error_result",
    "Roots", "OutsideError", "PathError", "RootsError",
    "serve", "at_exit", "child_env",
]
