"""`python3 -m ramabana_plugin COMMAND`: the kit's commands.

    bundle SOURCE.py [-o FILE] [--python PY] [--include PATH]... [--no-check]
        one executable file of a plugin (see bundle.py)
    check EXECUTABLE [ARG...]
        start a plugin as the host does, describe it with the host's checks,
        and list its tools
    version
        the kit's version
"""

import sys


def _check(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python3 -m ramabana_plugin check EXECUTABLE [ARG...]\n\n"
              "Starts the plugin as ramabana-mcp does, describes it with the host's checks and lists its tools.")
        return 0 if argv else 2
    from . import testing
    try:
        with testing.launch(argv) as p:
            print("%s %s: %s" % (p.name, p.version or "(no version)", p.description))
            for group, mode in p.groups:
                print("group %s (%s)" % (group, mode))
                for t in p.tools.values():
                    if t.group == group:
                        extra = " mode=%s" % t.mode if t.mode else ""
                        print("  %s: %s, %s%s" % (t.name, t.kind, t.task, extra))
            p.check_token_demanded()
    except Exception as e:
        print("check: %s" % e, file=sys.stderr)
        return 1
    return 0


def main(argv=None):
    """Runs the command argv names (default: sys.argv[1:]); returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    cmd, rest = (argv[0], argv[1:]) if argv else ("", [])
    if cmd == "bundle":
        from . import bundle
        return bundle.main(rest)
    if cmd == "check":
        return _check(rest)
    if cmd == "version":
        from . import __version__
        print(__version__)
        return 0
    print(__doc__.strip(), file=sys.stderr if cmd not in ("-h", "--help", "help") else sys.stdout)
    return 0 if cmd in ("-h", "--help", "help") else 2


if __name__ == "__main__":
    sys.exit(main())
