# The ramabana-mcp server image: streamable HTTP on port 8765, serving the
# folder mounted at /workspace, the bearer token from $RAMABANA_TOKEN.
#
#   docker build -t ramabana-mcp .
#   docker run --rm -p 8765:8765 -e RAMABANA_TOKEN=... -v "$PWD:/workspace" ramabana-mcp
#
# The bundled groups are this one binary run again as `plugin serve
# <group>`, so the image needs only what their tools call: git (the git
# group), python3 (inspect_python), bash (run_command, with --write) and the
# CA certificates (the web group, upstream servers, model endpoints).
# deploy/ has Kubernetes manifests for it; docs/http.md, "Container" and
# "Kubernetes", says more.

# Build and run on the same Debian release: cgo links against its glibc.
ARG DEBIAN=trixie

FROM golang:1.26-${DEBIAN} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
# cgo: the code group's tree-sitter grammars are C.
ARG VERSION=""
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=1 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" \
      -o /out/ramabana-mcp ./cmd/ramabana-mcp

FROM debian:${DEBIAN}-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates git python3 bash tini \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --uid 10001 --user-group --create-home --home-dir /home/ramabana --shell /bin/bash ramabana \
 && mkdir -p /workspace \
 && chown ramabana:ramabana /workspace
COPY --from=build /out/ramabana-mcp /usr/local/bin/ramabana-mcp
# The config dir (skills, installed plugins, stores) is $HOME/.config/ramabana;
# plugin sockets and commands' temporary folders go to $TMPDIR.
ENV HOME=/home/ramabana TMPDIR=/tmp
USER 10001:10001
WORKDIR /workspace
VOLUME /workspace
EXPOSE 8765
# tini is PID 1: it passes signals on to the server and reaps the processes
# orphaned to it (a killed plugin's children, what a git or python3 left
# behind), which the server, waiting only for its own children, would
# leave as zombies.
ENTRYPOINT ["tini", "--", "ramabana-mcp"]
# A non-loopback address needs a token: without $RAMABANA_TOKEN (or
# --token) the server refuses to start and says so.
CMD ["--transport", "http", "--addr", "0.0.0.0:8765", "--root", "/workspace"]
