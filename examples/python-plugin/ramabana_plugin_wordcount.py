"""wordcount: an example ramabana-mcp plugin written in Python.

Two read tools on text the model passes in:

  count_words {"text"}       -> "N words, M lines"
  top_words   {"text", "n"}  -> the n most frequent words with their counts

The tools are plain functions; ramabana_plugin does the handshake, the gRPC
services and the process lifetime. Build with build.sh; see README.md.
"""

import collections
import os
import re
import sys

# Run from the source tree rather than the built zipapp, the generated stubs
# are in gen/ next to this file (in the zipapp they are at its root).
_GEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen")
if os.path.isdir(_GEN):
    sys.path.insert(0, _GEN)

import ramabana_plugin as rp  # noqa: E402

NAME = "wordcount"
VERSION = "0.1.0"

MAX_TOP = 100


def plural(n, word):
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


def count_words(args, call):
    rp.check_known(args, "count_words", ["text"])
    s = rp.require_str(args, "text", "count_words")
    words = len(s.split())
    lines = s.count("\n") + (1 if s and not s.endswith("\n") else 0)
    return rp.text("%s, %s" % (plural(words, "word"), plural(lines, "line")),
                   {"words": words, "lines": lines})


# A word for top_words: letters and digits, with apostrophes inside
# ("don't"), compared case-insensitively.
WORD_RE = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")


def top_words(args, call):
    rp.check_known(args, "top_words", ["text", "n"])
    s = rp.require_str(args, "text", "top_words")
    n = rp.optional_int(args, "n", 10, 1, MAX_TOP)
    counts = collections.Counter(w.casefold() for w in WORD_RE.findall(s))
    total = sum(counts.values())
    call.progress(1, 2, "counted %s" % plural(total, "word"))
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
    structured = {"total": total, "distinct": len(counts),
                  "top": [{"word": w, "count": c} for w, c in top]}
    if not top:
        return rp.text("no words in text", structured)
    head = "%s, %d distinct; the %d most frequent:" % (plural(total, "word"), len(counts), len(top))
    return rp.text("\n".join([head] + ["%s: %d" % wc for wc in top]), structured)


TEXT_ARG = {"type": "string", "description": "The text to count, as it is (any length, any language)."}

TOOLS = [
    rp.Tool(
        name="count_words",
        title="Count words and lines",
        description=(
            "Count the words and lines of a text. Words are runs of non-whitespace "
            "characters (as `wc -w` counts them); lines end at \\n, and a last line "
            "without one counts too, so \"\" has 0 lines and \"a\\nb\" has 2. "
            'Returns "N words, M lines" (singular for 1), and {"words": N, "lines": M} '
            "as structured content."),
        input_schema={
            "type": "object",
            "properties": {"text": TEXT_ARG},
            "required": ["text"],
            "additionalProperties": False,
        },
        output_schema={
            "type": "object",
            "properties": {"words": {"type": "integer"}, "lines": {"type": "integer"}},
            "required": ["words", "lines"],
        },
        handler=count_words,
    ),
    rp.Tool(
        name="top_words",
        title="Most frequent words",
        description=(
            "List the n most frequent words of a text with their counts. Words here "
            "are runs of letters and digits, apostrophes allowed inside (\"don't\"), "
            "compared case-insensitively and shown lower-cased; punctuation and "
            "underscores separate words. Ties are ordered alphabetically. Returns a "
            'first line "T words, D distinct; the K most frequent:" then one '
            '"word: count" line each, most frequent first; "no words in text" when '
            "there are none."),
        input_schema={
            "type": "object",
            "properties": {
                "text": TEXT_ARG,
                "n": {"type": "integer", "minimum": 1, "maximum": MAX_TOP, "default": 10,
                      "description": "How many words to list, 1 to %d; default 10." % MAX_TOP},
            },
            "required": ["text"],
            "additionalProperties": False,
        },
        handler=top_words,
    ),
]


def main():
    rp.serve(rp.Plugin(name=NAME, version=VERSION,
                       description="Counts words and lines of text (an example plugin in Python)",
                       tools=TOOLS))


if __name__ == "__main__":
    main()
