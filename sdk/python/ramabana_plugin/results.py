"""What a tool answers, and what the host tells a plugin.

A handler returns a str (one text block), a typed output (a dataclass, a
TypedDict or a dict: structured content, and the same JSON as text), or a
Result it builds itself: text, images and embedded resources, structured
content, is_error, and the files it changed. A failure the model can act on
is raised as ToolError and becomes a Result with is_error.
"""

import dataclasses
import hashlib
import math
from typing import Any, List, Optional, Tuple, Union

MAX_DIFF_CONTENT = 1 << 20
"""The largest content (1 MiB) a FileChange carries for the ledger's diffs."""


class ToolError(Exception):
    """A failure the model can act on (a bad path, a stale line): the tool
    answers a Result with is_error set and the message as its text. Say
    what is wrong and what to do: "line 12 changed since you read it: read
    the file again". Any other exception a handler raises is a fault: the
    host gets a gRPC INTERNAL error and the traceback goes to the log."""

    def __init__(self, message):
        super().__init__(message)
        self.message = str(message)

    def __str__(self):
        return self.message


@dataclasses.dataclass(frozen=True)
class Host:
    """The host context of the last Describe: what is served and what is
    allowed, for the calls that follow."""

    roots: Tuple[str, ...] = ()
    """The served folders: absolute, cleaned, symlinks resolved, in --root order."""
    read_outside: bool = False
    """Reads may name paths outside the roots; writes never may."""
    web: bool = False
    """Tools may reach the network."""
    write: bool = False
    """Write tools are mounted for the client."""
    commands: bool = False
    """Programs may run: only then may a tool run a program named by the data it serves."""
    no_sandbox: bool = False
    """The user turned the command sandbox off."""
    config_dir: str = ""
    """The config dir (CFG), for the plugin's own settings and stores."""
    host_version: str = ""
    """The host's version, for logs."""


@dataclasses.dataclass(frozen=True)
class Text:
    """A text content block."""

    text: str


@dataclasses.dataclass(frozen=True)
class Image:
    """An inline image: its bytes and MIME type ("image/png")."""

    data: bytes
    mime_type: str


@dataclasses.dataclass(frozen=True)
class Resource:
    """An embedded resource: its URI, MIME type, and either text or blob."""

    uri: str
    mime_type: str = ""
    text: str = ""
    blob: bytes = b""

    def __post_init__(self):
        if self.text and self.blob:
            raise ValueError("resource %s: give text or blob, not both" % self.uri)


Content = Union[Text, Image, Resource]


@dataclasses.dataclass(frozen=True)
class FileChange:
    """One file a call created, changed or deleted, for the changes ledger.
    Make one with FileChange.of, or get one from Roots.write_file."""

    path: str
    """Absolute path."""
    before_sha256: str = ""
    """Hex SHA-256 of the content before; empty when the file was created."""
    after_sha256: str = ""
    """Hex SHA-256 of the content after; empty when the file was deleted."""
    before: bytes = b""
    """The content before, for text files up to 1 MiB; else empty."""
    after: bytes = b""
    """The content after, for text files up to 1 MiB; else empty."""

    @classmethod
    def of(cls, path, before, after):
        """The change of the file at path (absolute) from before to after
        (bytes). None before means the file was created, None after that it
        was deleted (an existing empty file is b""). The contents are kept
        for diffs when both sides are UTF-8 text of at most 1 MiB."""
        keep = _diffable(before) and _diffable(after)
        return cls(path=path,
                   before_sha256=_sha256(before) if before is not None else "",
                   after_sha256=_sha256(after) if after is not None else "",
                   before=(before or b"") if keep else b"",
                   after=(after or b"") if keep else b"")


def _sha256(b):
    return hashlib.sha256(b).hexdigest()


def _diffable(b):
    if b is None:
        return True
    if len(b) > MAX_DIFF_CONTENT:
        return False
    try:
        b.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@dataclasses.dataclass
class Result:
    """A tool's answer as the host gets it. content holds Text, Image and
    Resource blocks (a str is taken as Text); structured is JSON content
    matching the output schema (a dict, or a dataclass converted to one);
    is_error marks a failure the model can act on; changes lists the files
    the call changed (FileChange), for the changes ledger."""

    content: List[Any] = dataclasses.field(default_factory=list)
    structured: Any = None
    is_error: bool = False
    changes: List[FileChange] = dataclasses.field(default_factory=list)

    def text(self):
        """The text blocks joined with newlines."""
        return "\n".join(c if isinstance(c, str) else c.text for c in self.content
                         if isinstance(c, (str, Text)))


def text_result(text, structured=None):
    """A successful Result with one text block, and structured content
    when given."""
    return Result(content=[Text(text)], structured=structured)


def error_result(message):
    """The Result a ToolError becomes: is_error, and message as its text."""
    return Result(content=[Text(str(message))], is_error=True)


@dataclasses.dataclass(frozen=True)
class Evaluation:
    """An evaluation tool's verdict on an agent's answer; on the wire
    {"is_valid": bool, "score": number, "feedback": string or null}. A
    verdict that is not valid sends its feedback to the model for another
    try."""

    is_valid: bool
    score: float
    feedback: Optional[str] = None

    @classmethod
    def valid(cls, score=1.0):
        """A passing verdict with no feedback."""
        return cls(True, score, None)

    @classmethod
    def invalid(cls, score, feedback):
        """A failing verdict with feedback for the next try."""
        return cls(False, score, feedback)

    def to_json(self):
        """The wire object; ValueError for a score JSON cannot carry."""
        if isinstance(self.score, bool) or not isinstance(self.score, (int, float)) or not math.isfinite(self.score):
            raise ValueError("evaluation score %r is not a finite number" % (self.score,))
        if not isinstance(self.is_valid, bool):
            raise ValueError("evaluation is_valid %r is not a bool" % (self.is_valid,))
        if self.feedback is not None and not isinstance(self.feedback, str):
            raise ValueError("evaluation feedback %r is not a str or None" % (self.feedback,))
        return {"is_valid": self.is_valid, "score": self.score, "feedback": self.feedback}


EVALUATION_SCHEMA = {
    "type": "object",
    "properties": {
        "is_valid": {"type": "boolean", "description": "whether the answer passes"},
        "score": {"type": "number", "description": "how good the answer is"},
        "feedback": {"type": ["string", "null"], "description": "what to change, for another try"},
    },
    "required": ["is_valid", "score", "feedback"],
    "additionalProperties": False,
}
"""The output schema of every evaluation tool (the Go sdk's)."""
