#!/usr/bin/env bash
# Builds dist/ramabana-plugin-{{NAME}}: one executable file (a zipapp) holding
# {{IDENT}}_plugin.py and the kit, ramabana_plugin/. The bundle is started and
# described before it is written; it is written atomically.
#
# Needs only grpcio and protobuf for $PYTHON (Debian: apt-get install
# python3-grpcio python3-protobuf). PYTHON (default /usr/bin/python3) is also
# the bundle's #! interpreter; DIST_DIR (default dist/ here) is where it goes.
# More modules of your own: add --include FILE_OR_PACKAGE for each.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
DIST_DIR=${DIST_DIR:-$here/dist}

"$PYTHON" -c 'import grpc, google.protobuf' 2>/dev/null ||
	{ echo "build.sh: $PYTHON cannot import grpc and google.protobuf (Debian: apt-get install python3-grpcio python3-protobuf)" >&2; exit 1; }
cd "$here"
"$PYTHON" -m ramabana_plugin bundle {{IDENT}}_plugin.py --python "$PYTHON" --output "$DIST_DIR/ramabana-plugin-{{NAME}}"
