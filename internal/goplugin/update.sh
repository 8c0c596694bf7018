#!/bin/sh
# update.sh writes this folder from hashicorp/go-plugin at VERSION, trimmed
# as README.md says: the packages' non-test Go files and the license,
# import paths moved under this folder, testing.go left out and the gRPC
# reflection service not registered. Every .go file here is its output: it
# deletes them all first. `make goplugin` runs it; `make checkgenerate`
# fails when the folder is not what it writes.
#
# To move to another release: set VERSION and SUM (the module's h1: hash,
# as go.sum would record it; go mod download -json prints it), run it,
# read the diff, and run the tests.
set -eu

MOD=github.com/hashicorp/go-plugin
VERSION=v1.8.0
SUM=h1:ie8S6RRY8RvB2usYZv+AAZ/wBvx2AU5p5QeP5j/FORs=
HERE=github.com/ramabana/ramabana-mcp/internal/goplugin

dir=$(cd "$(dirname "$0")" && pwd)
# The hash is checked here, against SUM, rather than by the checksum
# database: this module is not in go.sum.
info=$(GONOSUMDB=$MOD GOFLAGS=-mod=mod go mod download -json "$MOD@$VERSION")
src=$(printf '%s\n' "$info" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
sum=$(printf '%s\n' "$info" | sed -n 's/^[[:space:]]*"Sum": "\(.*\)",*$/\1/p')
if [ "$sum" != "$SUM" ]; then
	echo "update.sh: $MOD@$VERSION has hash $sum, want $SUM" >&2
	exit 1
fi

find "$dir" -name '*.go' -delete
find "$dir" -depth -mindepth 1 -type d -empty -delete
cp "$src/LICENSE" "$dir/LICENSE"
chmod 644 "$dir/LICENSE"
(cd "$src" && find . -name '*.go' ! -name '*_test.go' ! -name testing.go \
	! -path './examples/*' ! -path './test/*' ! -path './docs/*' | sort) |
	while read -r f; do
		mkdir -p "$dir/$(dirname "$f")"
		sed "s#\"$MOD/#\"$HERE/#; s#\"$MOD\"#\"$HERE\"#" "$src/$f" > "$dir/$f"
	done

# The reflection service: its package links protodesc, whose init and
# descriptorpb's cost every start of the binary ~250 page faults.
g="$dir/grpc_server.go"
sed '/"google.golang.org\/grpc\/reflection"/d; /Register the reflection service/d; /reflection\.Register(s\.server)/d' "$g" > "$g.new"
mv "$g.new" "$g"
# The moved import paths sort elsewhere, and the trim leaves a blank line.
"$(go env GOROOT)/bin/gofmt" -w "$dir"
if grep -rq --include='*.go' 'grpc/reflection\|reflection\.Register' "$dir"; then
	echo "update.sh: $MOD@$VERSION registers reflection where this script does not look; trim it by hand and update the script" >&2
	exit 1
fi
