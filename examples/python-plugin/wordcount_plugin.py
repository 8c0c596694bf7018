"""wordcount: an example ramabana-mcp plugin written with the Python kit.

Two read tools on text the model passes in:

  count_words {"text"}       -> "N words, M lines", and {"words", "lines"} structured
  top_words   {"text", "n"}  -> the n most frequent words with their counts

The tools are typed functions: the kit derives their input schemas from the
signatures, checks and binds the arguments, and serves them (ramabana_plugin
.serve). Build one executable file with build.sh; see README.md.
"""

import collections
import re
from dataclasses import dataclass
from typing import Annotated

import ramabana_plugin as rp

MAX_TOP = 100

box = rp.Toolbox("wordcount", version="0.1.0",
                 description="Counts words and lines of text (an example plugin in Python)")

Text = Annotated[str, "The text to count, as it is (any length, any language)."]


@dataclass
class Counts:
    """The counts of a text."""

    words: Annotated[int, "runs of non-whitespace characters"]
    lines: Annotated[int, "lines, a last one without a newline included"]


def plural(n, word):
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


@box.tool(kind=rp.READ, title="Count words and lines", output=Counts)
def count_words(text: Text) -> rp.Result:
    """Count the words and lines of a text. Words are runs of non-whitespace characters (as
    `wc -w` counts them); lines end at \\n, and a last line without one counts too, so "" has 0
    lines and "a\\nb" has 2. Returns "N words, M lines" (singular for 1), and {"words": N,
    "lines": M} as structured content."""
    words = len(text.split())
    lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    return rp.text_result("%s, %s" % (plural(words, "word"), plural(lines, "line")), Counts(words, lines))


# A word for top_words: letters and digits, with apostrophes inside
# ("don't"), compared case-insensitively.
WORD_RE = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")


@box.tool(kind=rp.READ, title="Most frequent words")
def top_words(text: Text,
              n: Annotated[int, rp.Field("How many words to list.", minimum=1, maximum=MAX_TOP)] = 10,
              call: rp.Call = None) -> rp.Result:
    """List the n most frequent words of a text with their counts. Words here are runs of letters
    and digits, apostrophes allowed inside ("don't"), compared case-insensitively and shown
    lower-cased; punctuation and underscores separate words. Ties are ordered alphabetically.
    Returns a first line "T words, D distinct; the K most frequent:" then one "word: count" line
    each, most frequent first; "no words in text" when there are none."""
    counts = collections.Counter(w.casefold() for w in WORD_RE.findall(text))
    total = sum(counts.values())
    call.progress(1, 2, "counted %s" % plural(total, "word"))
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
    structured = {"total": total, "distinct": len(counts), "top": [{"word": w, "count": c} for w, c in top]}
    if not top:
        return rp.text_result("no words in text", structured)
    head = "%s, %d distinct; the %d most frequent:" % (plural(total, "word"), len(counts), len(top))
    return rp.text_result("\n".join([head] + ["%s: %d" % wc for wc in top]), structured)


if __name__ == "__main__":
    rp.serve(box)
