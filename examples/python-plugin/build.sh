#!/usr/bin/env bash
# Builds the wordcount plugin: generates the Python gRPC stubs into gen/,
# then bundles them with the plugin's sources into one executable zipapp,
# dist/ramabana-plugin-wordcount, whose shebang is /usr/bin/python3. The
# zipapp is self-contained: copied alone anywhere (ramabana-mcp plugin
# install copies only that file), it still runs.
#
# Needs (Debian): protobuf-compiler, protobuf-compiler-grpc, python3-grpcio,
# python3-protobuf. Overrides: PYTHON (the interpreter, also the shebang),
# PROTOC, GRPC_PYTHON_PLUGIN, GEN_DIR and DIST_DIR (output dirs).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
PROTOC=${PROTOC:-protoc}
GRPC_PYTHON_PLUGIN=${GRPC_PYTHON_PLUGIN:-/usr/bin/grpc_python_plugin}
GEN_DIR=${GEN_DIR:-$here/gen}
DIST_DIR=${DIST_DIR:-$here/dist}
apt_hint="apt-get install python3-grpcio python3-protobuf protobuf-compiler protobuf-compiler-grpc"

command -v "$PROTOC" >/dev/null || { echo "build.sh: $PROTOC not found ($apt_hint)" >&2; exit 1; }
[ -x "$GRPC_PYTHON_PLUGIN" ] || { echo "build.sh: $GRPC_PYTHON_PLUGIN not found ($apt_hint)" >&2; exit 1; }
"$PYTHON" -c 'import grpc, google.protobuf' 2>/dev/null ||
	{ echo "build.sh: $PYTHON cannot import grpc and google.protobuf ($apt_hint)" >&2; exit 1; }

rm -rf "$GEN_DIR"
mkdir -p "$GEN_DIR" "$DIST_DIR"
gen() { # gen INCLUDE_DIR FILE: Python messages and gRPC stubs for FILE
	"$PROTOC" -I "$1" --python_out="$GEN_DIR" --grpc_out="$GEN_DIR" \
		--plugin=protoc-gen-grpc="$GRPC_PYTHON_PLUGIN" "$1/$2"
}
# The published contract, as the module ramabana.plugin.v1.plugin_pb2.
gen "$repo/proto" ramabana/plugin/v1/plugin.proto
# The health and controller protos are compiled from their own dirs, into
# the top-level modules health_pb2 and grpc_controller_pb2: compiled as
# grpc/health/v1/health.proto they would be the package grpc.health.v1,
# which the grpcio package (grpc) would shadow. The proto package, service
# and method names, which are all the wire sees, are the upstream ones.
gen "$here/proto/grpc/health/v1" health.proto
gen "$here/proto/plugin" grpc_controller.proto
# Regular packages: zipimport does not find namespace packages everywhere.
for d in ramabana ramabana/plugin ramabana/plugin/v1; do
	: >"$GEN_DIR/$d/__init__.py"
done

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp -R "$GEN_DIR/." "$stage/"
cp "$here/ramabana_plugin.py" "$here/ramabana_plugin_wordcount.py" "$stage/"
out="$DIST_DIR/ramabana-plugin-wordcount"
# Written beside the target, then renamed: never a half-written plugin.
"$PYTHON" -m zipapp "$stage" --python=/usr/bin/python3 --compress \
	--main=ramabana_plugin_wordcount:main --output="$out.tmp"
chmod 0755 "$out.tmp"
# The bundle must import on its own.
"$PYTHON" -c 'import sys; sys.path.insert(0, sys.argv[1]); import ramabana_plugin_wordcount, health_pb2_grpc, grpc_controller_pb2_grpc, ramabana.plugin.v1.plugin_pb2_grpc' "$out.tmp"
mv -f "$out.tmp" "$out"
echo "built $out"
