// Package embedding turns texts into vectors: a Client for an OpenAI-compatible
// embeddings endpoint (OpenAI, Ollama, llama.cpp, vLLM, LM Studio, ...) and
// a Cache that keeps the vectors on disk, so that a restart embeds again
// only what changed.
//
//	c, err := embedding.New(embedding.Config{URL: "http://127.0.0.1:11434/v1", Model: "nomic-embed-text"})
//	vecs, err := c.Embed(ctx, []string{"read a file", "create a github issue"})
//
// The contract:
//
//   - Embed returns one vector per text, in the texts' order, all of one
//     dimension, every value finite; anything else the server answers is an
//     error wrapping ErrBadResponse. It sends at most Config.BatchSize texts
//     a request, one request at a time, each bounded by Config.Timeout and
//     by the caller's context. It does not retry: its callers degrade (to
//     BM25) and try again later.
//   - An error names the endpoint and the model and says what the server
//     answered (its status and its own message), with the API key, should
//     the server echo it, replaced by "[redacted]". Test its kind with
//     errors.Is: ErrUnreachable, ErrAuth, ErrRejected, ErrServer,
//     ErrBadResponse.
//   - A Cache maps (model, text) to a vector, keyed by the SHA-256 of both.
//     Its file is replaced whole (a temp file renamed over it), so a crash
//     leaves the old file or the new one, never half of one; a file that is
//     corrupt, truncated or of another format is ignored (Load says why and
//     the cache starts empty), never a crash. Save keeps only the entries
//     its caller still uses, so the file is bounded by the catalog.
package embedding
