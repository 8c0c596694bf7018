"""The contract the kit carries (ramabana_plugin/_contract.py) is what
gen_contract.py makes of the repository's proto/ files."""

import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from google.protobuf import descriptor_pb2, text_format

from helpers import REPO, SDK

sys.path.insert(0, SDK)
import gen_contract  # noqa: E402
from ramabana_plugin import _contract  # noqa: E402


def carried():
    out = {}
    for text in _contract.FILES:
        fd = text_format.Parse(text, descriptor_pb2.FileDescriptorProto())
        out[fd.name] = fd
    return out


class ContractTest(unittest.TestCase):
    def test_carried_contract_matches_proto(self):
        fresh = {fd.name: fd for fd in gen_contract.descriptors(os.path.join(REPO, "proto"))}
        have = carried()
        self.assertEqual(sorted(fresh), sorted(have))
        for name, fd in fresh.items():
            self.assertEqual(fd, have[name],
                             "%s drifted from proto/%s: run /usr/bin/python3 sdk/python/gen_contract.py" % (name, name))

    def test_check_mode_fails_on_drift(self):
        """gen_contract --check fails when proto/ changed and passes when not."""
        with tempfile.TemporaryDirectory() as d:
            proto = os.path.join(d, "proto")
            shutil.copytree(os.path.join(REPO, "proto"), proto)
            out = os.path.join(d, "_contract.py")
            quiet = io.StringIO()
            with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
                self.assertEqual(gen_contract.main(["--proto", proto, "--output", out]), 0)
                self.assertEqual(gen_contract.main(["--proto", proto, "--output", out, "--check"]), 0)
            path = os.path.join(proto, "ramabana/plugin/v1/plugin.proto")
            with open(path, encoding="utf-8") as f:
                text = f.read()
            with open(path, "w", encoding="utf-8") as f:
                f.write(text.replace("bool no_sandbox = 8;", "bool no_sandbox = 8;\n  string added = 9;"))
            with contextlib.redirect_stderr(quiet):
                self.assertEqual(gen_contract.main(["--proto", proto, "--output", out, "--check"]), 1)
            self.assertIn("is stale", quiet.getvalue())

    def test_parser_refuses_what_it_does_not_know(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x.proto")
            for text, want in [
                ('syntax = "proto2";', "only proto3"),
                ('syntax = "proto3"; import "other.proto";', "unsupported statement"),
                ('syntax = "proto3"; message A { Missing m = 1; }', "unknown type Missing"),
                ('syntax = "proto3"; message A { string s = ; }', "expected an integer"),
            ]:
                with open(path, "w") as f:
                    f.write(text)
                with self.assertRaises(gen_contract.ProtoError) as cm:
                    gen_contract.parse_file(path, "x.proto")
                self.assertIn(want, str(cm.exception))
                self.assertIn("x.proto:1", str(cm.exception))

    @unittest.skipUnless(shutil.which("protoc"), "protoc is not installed: the parser is not cross-checked")
    def test_parser_agrees_with_protoc(self):
        mine = {fd.name: fd for fd in gen_contract.descriptors(os.path.join(REPO, "proto"))}
        with tempfile.TemporaryDirectory() as d:
            for inc, name in gen_contract.FILES:
                out = os.path.join(d, "set.pb")
                subprocess.run(["protoc", "-I", os.path.join(REPO, "proto", inc), "--descriptor_set_out=" + out, name],
                               check=True)
                fds = descriptor_pb2.FileDescriptorSet()
                with open(out, "rb") as f:
                    fds.ParseFromString(f.read())
                theirs = fds.file[0]
                theirs.ClearField("options")  # the kit drops options
                self.assertEqual(theirs, mine[name], name)

    def test_messages_build(self):
        from ramabana_plugin import _wire as W
        req = W.CallRequest(tool="t", arguments=b"{}", call_id="c")
        self.assertEqual(W.CallRequest.FromString(req.SerializeToString()), req)
        self.assertEqual(set(W.methods(W.TOOL_GROUP_SERVICE)), {"Describe", "Call"})
        self.assertTrue(W.methods(W.TOOL_GROUP_SERVICE)["Call"][2], "Call is server-streaming")
        self.assertEqual(set(W.methods(W.HEALTH_SERVICE)), {"Check", "List", "Watch"})
        self.assertEqual(set(W.methods(W.CONTROLLER_SERVICE)), {"Shutdown"})
        self.assertEqual(W.kind_name(W.kind_number("write")), "write")
        self.assertEqual(W.task_name(0), "completion")


if __name__ == "__main__":
    unittest.main()
