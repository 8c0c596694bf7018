#!/usr/bin/env python3
"""Writes ramabana_plugin/_contract.py from the repository's proto/ files.

The kit carries the plugin contract so that authors need no protoc: the
three files a plugin serves (the ramabana ToolGroupService, grpc's health
service, go-plugin's controller) as FileDescriptorProtos in protobuf's text
format, which ramabana_plugin/_wire.py loads into a private descriptor pool
at run time. This script makes them from the .proto sources with a small
parser of the proto3 subset those files use, so it needs no protoc either;
anything outside that subset is an error naming the file and line, never a
silent guess. tests/test_contract.py fails when _contract.py differs from
what this script makes of proto/ (and, where protoc is installed, when the
parser's descriptors differ from protoc's).

    /usr/bin/python3 sdk/python/gen_contract.py            # rewrite _contract.py
    /usr/bin/python3 sdk/python/gen_contract.py --check    # exit 1 if it is stale (compared as descriptors)

Options (and comments) are dropped: the wire needs only packages, messages,
fields, enums and services.
"""

import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_PROTO = os.path.normpath(os.path.join(HERE, "..", "..", "proto"))
OUTPUT = os.path.join(HERE, "ramabana_plugin", "_contract.py")

# The files the kit carries: (include dir relative to proto/, file name
# relative to that dir). The file name is the descriptor's name.
FILES = [
    ("", "ramabana/plugin/v1/plugin.proto"),
    ("third_party", "grpc/health/v1/health.proto"),
    ("third_party", "plugin/grpc_controller.proto"),
]

SCALARS = {
    "double": 1, "float": 2, "int64": 3, "uint64": 4, "int32": 5, "fixed64": 6,
    "fixed32": 7, "bool": 8, "string": 9, "bytes": 12, "uint32": 13,
    "sfixed32": 15, "sfixed64": 16, "sint32": 17, "sint64": 18,
}
TYPE_MESSAGE, TYPE_ENUM = 11, 14
LABEL_OPTIONAL, LABEL_REPEATED = 1, 3


class ProtoError(Exception):
    """A .proto the parser cannot read; the message names file and line."""


_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<number>-?(?:0[xX][0-9a-fA-F]+|[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?))
  | (?P<ident>\.?[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)
  | (?P<symbol>[{}()\[\];=<>,])
""", re.VERBOSE | re.DOTALL)


def tokenize(text, path):
    """Returns the tokens of text as (kind, value, line), comments dropped."""
    out, pos, line = [], 0, 1
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise ProtoError("%s:%d: unexpected %r" % (path, line, text[pos:pos + 20]))
        kind, value = m.lastgroup, m.group()
        if kind not in ("space", "comment"):
            out.append((kind, value, line))
        line += value.count("\n")
        pos = m.end()
    return out


def json_name(name):
    """protoc's json_name: '_' dropped, the letter after it upper-cased."""
    out, upper = [], False
    for c in name:
        if c == "_":
            upper = True
        elif upper:
            out.append(c.upper())
            upper = False
        else:
            out.append(c)
    return "".join(out)


def camel(name):
    """protoc's map entry name part: each '_'-separated word capitalised."""
    return "".join(w[:1].upper() + w[1:] for w in name.split("_"))


class Parser:
    """Parses one .proto file into a FileDescriptorProto whose type names
    are left unresolved (resolve() does that once every file is read)."""

    def __init__(self, text, path, name):
        from google.protobuf import descriptor_pb2
        self.pb = descriptor_pb2
        self.path = path
        self.toks = tokenize(text, path)
        self.i = 0
        self.file = descriptor_pb2.FileDescriptorProto(name=name)
        # (field proto, scope, line) for resolve()
        self.refs = []

    # -- tokens -----------------------------------------------------------
    def peek(self, ahead=0):
        j = self.i + ahead
        return self.toks[j] if j < len(self.toks) else ("eof", "", self.toks[-1][2] if self.toks else 1)

    def fail(self, what, tok=None):
        tok = tok or self.peek()
        raise ProtoError("%s:%d: %s (at %r)" % (self.path, tok[2], what, tok[1]))

    def next(self):
        tok = self.peek()
        if tok[0] == "eof":
            self.fail("unexpected end of file")
        self.i += 1
        return tok

    def expect(self, value):
        tok = self.next()
        if tok[1] != value:
            self.fail("expected %r" % value, tok)
        return tok

    def ident(self):
        tok = self.next()
        if tok[0] != "ident":
            self.fail("expected a name", tok)
        return tok[1]

    def integer(self):
        tok = self.next()
        if tok[0] != "number" or not re.fullmatch(r"-?(0[xX][0-9a-fA-F]+|[0-9]+)", tok[1]):
            self.fail("expected an integer", tok)
        return int(tok[1], 0)

    def accept(self, value):
        if self.peek()[1] == value and self.peek()[0] != "string":
            self.i += 1
            return True
        return False

    # -- grammar ----------------------------------------------------------
    def parse(self):
        self.expect("syntax")
        self.expect("=")
        tok = self.next()
        if tok[1].strip("\"'") != "proto3":
            self.fail("only proto3 files are supported", tok)
        self.expect(";")
        self.file.syntax = "proto3"
        while self.peek()[0] != "eof":
            word = self.peek()[1]
            if word == "package":
                self.next()
                self.file.package = self.ident()
                self.expect(";")
            elif word == "option":
                self.skip_option()
            elif word == "message":
                self.message(self.file.message_type.add(), self.scope_of_file())
            elif word == "enum":
                self.enum(self.file.enum_type.add())
            elif word == "service":
                self.service(self.file.service.add())
            elif word == ";":
                self.next()
            else:
                self.fail("unsupported statement (the kit's parser reads package, option, message, enum and service)")
        return self

    def scope_of_file(self):
        return "." + self.file.package if self.file.package else ""

    def skip_option(self):
        """option NAME = VALUE; (dropped)."""
        self.expect("option")
        while not self.accept(";"):
            if self.peek()[1] == "{":
                self.fail("aggregate option values are not supported")
            self.next()

    def skip_field_options(self):
        """[NAME = VALUE, ...] after a field or enum value (dropped)."""
        if self.accept("["):
            while not self.accept("]"):
                self.next()

    def message(self, msg, scope):
        self.expect("message")
        msg.name = self.ident()
        scope = scope + "." + msg.name
        self.expect("{")
        synthetic = []  # proto3 optional fields, whose oneofs come last
        while not self.accept("}"):
            word = self.peek()[1]
            if word == "message":
                self.message(msg.nested_type.add(), scope)
            elif word == "enum":
                self.enum(msg.enum_type.add())
            elif word == "option":
                self.skip_option()
            elif word == "oneof":
                self.next()
                index = len(msg.oneof_decl)
                msg.oneof_decl.add(name=self.ident())
                self.expect("{")
                while not self.accept("}"):
                    if self.peek()[1] == "option":
                        self.skip_option()
                        continue
                    f = self.field(msg, scope, label=LABEL_OPTIONAL)
                    f.oneof_index = index
            elif word == "reserved":
                self.reserved(msg)
            elif word == "map":
                self.map_field(msg, scope)
            elif word == ";":
                self.next()
            else:
                label = LABEL_OPTIONAL
                if self.accept("repeated"):
                    label = LABEL_REPEATED
                elif self.accept("optional"):
                    synthetic.append(None)
                    f = self.field(msg, scope, label=LABEL_OPTIONAL)
                    f.proto3_optional = True
                    synthetic[-1] = f
                    continue
                self.field(msg, scope, label=label)
        for f in synthetic:
            f.oneof_index = len(msg.oneof_decl)
            msg.oneof_decl.add(name="_" + f.name)

    def field(self, msg, scope, label):
        tok = self.peek()
        type_name = self.ident()
        f = msg.field.add(name=self.ident(), label=label)
        self.expect("=")
        f.number = self.integer()
        f.json_name = json_name(f.name)
        self.skip_field_options()
        self.expect(";")
        if type_name in SCALARS:
            f.type = SCALARS[type_name]
        else:
            f.type_name = type_name
            self.refs.append((f, scope, tok))
        return f

    def map_field(self, msg, scope):
        tok = self.expect("map")
        self.expect("<")
        key = self.ident()
        self.expect(",")
        value_tok = self.peek()
        value = self.ident()
        self.expect(">")
        name = self.ident()
        self.expect("=")
        number = self.integer()
        self.skip_field_options()
        self.expect(";")
        if key not in SCALARS or key in ("double", "float", "bytes"):
            self.fail("map key type %s is not allowed" % key, tok)
        entry = msg.nested_type.add(name=camel(name) + "Entry")
        entry.options.map_entry = True
        entry.field.add(name="key", number=1, label=LABEL_OPTIONAL, type=SCALARS[key], json_name="key")
        v = entry.field.add(name="value", number=2, label=LABEL_OPTIONAL, json_name="value")
        if value in SCALARS:
            v.type = SCALARS[value]
        else:
            v.type_name = value
            self.refs.append((v, scope + "." + entry.name, value_tok))
        msg.field.add(name=name, number=number, label=LABEL_REPEATED, type=TYPE_MESSAGE,
                      type_name=scope + "." + entry.name, json_name=json_name(name))

    def reserved(self, msg):
        self.expect("reserved")
        while True:
            tok = self.peek()
            if tok[0] == "string":
                self.next()
                msg.reserved_name.append(tok[1][1:-1])
            else:
                start = self.integer()
                end = start
                if self.accept("to"):
                    end = 536870911 if self.accept("max") else self.integer()
                msg.reserved_range.add(start=start, end=end + 1)
            if not self.accept(","):
                break
        self.expect(";")

    def enum(self, enum):
        self.expect("enum")
        enum.name = self.ident()
        self.expect("{")
        while not self.accept("}"):
            if self.peek()[1] == "option":
                self.skip_option()
                continue
            if self.accept(";"):
                continue
            if self.peek()[1] == "reserved":
                self.fail("reserved in enums is not supported")
            v = enum.value.add(name=self.ident())
            self.expect("=")
            v.number = self.integer()
            self.skip_field_options()
            self.expect(";")

    def service(self, svc):
        self.expect("service")
        svc.name = self.ident()
        self.expect("{")
        while not self.accept("}"):
            if self.peek()[1] == "option":
                self.skip_option()
                continue
            if self.accept(";"):
                continue
            self.expect("rpc")
            m = svc.method.add(name=self.ident())
            self.expect("(")
            if self.peek()[1] == "stream" and self.peek(1)[0] == "ident":
                self.next()
                m.client_streaming = True
            in_tok = self.peek()
            m.input_type = self.ident()
            self.expect(")")
            self.expect("returns")
            self.expect("(")
            if self.peek()[1] == "stream" and self.peek(1)[0] == "ident":
                self.next()
                m.server_streaming = True
            out_tok = self.peek()
            m.output_type = self.ident()
            self.expect(")")
            if self.accept("{"):
                while not self.accept("}"):
                    if self.peek()[1] == "option":
                        self.skip_option()
                    else:
                        self.expect(";")
            else:
                self.expect(";")
            self.refs.append((m, self.scope_of_file(), in_tok, "input_type"))
            self.refs.append((m, self.scope_of_file(), out_tok, "output_type"))


def _declared(file):
    """Every message and enum of file by full name ('.pkg.Msg'): 'message' or 'enum'."""
    out = {}
    prefix = "." + file.package if file.package else ""

    def walk(msgs, enums, scope):
        for e in enums:
            out[scope + "." + e.name] = "enum"
        for m in msgs:
            out[scope + "." + m.name] = "message"
            walk(m.nested_type, m.enum_type, scope + "." + m.name)
    walk(file.message_type, file.enum_type, prefix)
    return out


def _lookup(name, scope, declared):
    """protobuf's scoping: a name is looked up from the innermost scope out."""
    if name.startswith("."):
        return name if name in declared else None
    first, _, rest = name.partition(".")
    parts = scope.split(".")
    while True:
        base = ".".join(parts)
        cand = base + "." + first
        if cand in declared:
            full = cand + ("." + rest if rest else "")
            return full if full in declared else None
        if not parts or parts == [""]:
            return None
        parts = parts[:-1]


def resolve(parser):
    """Fully qualifies every type name of the parsed file; unknown types
    are errors (the kit's files import nothing)."""
    declared = _declared(parser.file)
    for ref in parser.refs:
        if len(ref) == 3:
            f, scope, tok = ref
            full = _lookup(f.type_name, scope, declared)
            if full is None:
                parser.fail("unknown type %s" % f.type_name, tok)
            f.type_name = full
            f.type = TYPE_MESSAGE if declared[full] == "message" else TYPE_ENUM
        else:
            m, scope, tok, attr = ref
            full = _lookup(getattr(m, attr), scope, declared)
            if full is None or declared[full] != "message":
                parser.fail("unknown message %s" % getattr(m, attr), tok)
            setattr(m, attr, full)
    return parser.file


def parse_file(path, name):
    """The FileDescriptorProto of the .proto at path, named name."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return resolve(Parser(text, path, name).parse())


def descriptors(proto_dir=DEFAULT_PROTO):
    """The FileDescriptorProtos of FILES, read from proto_dir."""
    return [parse_file(os.path.join(proto_dir, inc, name), name) for inc, name in FILES]


HEADER = '''"""The plugin contract as the kit carries it. Generated: do not edit.

Written by sdk/python/gen_contract.py from the ramabana-mcp repository's
proto/ files:
%s
tests/test_contract.py fails when it drifts. Each entry is a
FileDescriptorProto in protobuf's text format, loaded by _wire.py.
"""

FILES = (
'''


def render(files):
    """The text of _contract.py for the descriptors files."""
    from google.protobuf import text_format
    out = [HEADER % "".join("    proto/%s\n" % os.path.join(inc, name) for inc, name in FILES)]
    for fd in files:
        text = text_format.MessageToString(fd)
        out.append("    # %s\n    %s,\n" % (fd.name, _literal(text)))
    out.append(")\n")
    return "".join(out)


def _literal(text):
    """text as a parenthesised sequence of Python string literals, a line each."""
    lines = text.splitlines(keepends=True)
    return "(\n" + "".join("        %r\n" % line for line in lines) + "    )"


def _same_contract(current, proto_dir):
    """Whether current (the text of a _contract.py, or None) carries the
    descriptors proto_dir makes: compared as messages, so that another
    protobuf version's text format cannot make a current file look stale."""
    if current is None:
        return False
    from google.protobuf import descriptor_pb2, text_format
    ns = {}
    try:
        exec(compile(current, "_contract.py", "exec"), ns)
        have = [text_format.Parse(t, descriptor_pb2.FileDescriptorProto()) for t in ns["FILES"]]
    except Exception:
        return False
    return have == descriptors(proto_dir)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--proto", default=DEFAULT_PROTO, help="the proto/ folder (default: the repository's)")
    ap.add_argument("--output", default=OUTPUT, help="the file to write (default: ramabana_plugin/_contract.py)")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 when the output is stale")
    args = ap.parse_args(argv)
    try:
        text = render(descriptors(args.proto))
    except (ProtoError, OSError) as e:
        print("gen_contract: %s" % e, file=sys.stderr)
        return 1
    try:
        with open(args.output, encoding="utf-8") as f:
            current = f.read()
    except FileNotFoundError:
        current = None
    if args.check:
        if not _same_contract(current, args.proto):
            print("gen_contract: %s is stale: run /usr/bin/python3 sdk/python/gen_contract.py" % args.output,
                  file=sys.stderr)
            return 1
        return 0
    if current != text:
        tmp = args.output + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, args.output)
        print("wrote %s" % args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
