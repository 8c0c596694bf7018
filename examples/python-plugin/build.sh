#!/usr/bin/env bash
# Builds dist/ramabana-plugin-wordcount: one executable file (a zipapp)
# holding wordcount_plugin.py and the kit, ramabana_plugin/, which
# `ramabana-mcp plugin install` copies as it is. The bundle is started and
# described before it is written; it is written atomically.
#
# Works from any folder. Needs only grpcio and protobuf for $PYTHON (Debian:
# apt-get install python3-grpcio python3-protobuf); no protoc.
# PYTHON (default /usr/bin/python3) is also the bundle's #! interpreter;
# DIST_DIR (default dist/ beside this script) is where it goes.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
DIST_DIR=${DIST_DIR:-$here/dist}

"$PYTHON" -c 'import grpc, google.protobuf' 2>/dev/null ||
	{ echo "build.sh: $PYTHON cannot import grpc and google.protobuf (Debian: apt-get install python3-grpcio python3-protobuf)" >&2; exit 1; }
cd "$here"
# -m finds ramabana_plugin/ here first (in this repository, a link to sdk/python/ramabana_plugin).
"$PYTHON" -m ramabana_plugin bundle wordcount_plugin.py --python "$PYTHON" --output "$DIST_DIR/ramabana-plugin-wordcount"
