// Builds dist/ramabana-plugin-{{NAME}}: src/main.ts and everything it imports
// (the kit in ramabana/, @grpc/grpc-js, zod) bundled by esbuild into one
// executable JavaScript file that starts with `#!/usr/bin/env node`.
// `ramabana-mcp plugin install` copies that one file, and the host gives a
// plugin no NODE_PATH: the file needs nothing beside it but Node 20 or later
// on the PATH. It is checked to run alone before it replaces the last build.

import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const out = "dist/ramabana-plugin-{{NAME}}";
mkdirSync("dist", { recursive: true });
await build({
  entryPoints: ["src/main.ts"],
  outfile: out + ".tmp",
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  banner: { js: "#!/usr/bin/env node" },
  legalComments: "none",
  logLevel: "error",
});
chmodSync(out + ".tmp", 0o755);

// Run alone, in an empty folder, without the host's cookie, the plugin must
// say it is a plugin and exit 1: proof that it loads with nothing beside it.
const alone = mkdtempSync(join(tmpdir(), "ramabana-build-"));
try {
  copyFileSync(out + ".tmp", join(alone, "plugin"));
  chmodSync(join(alone, "plugin"), 0o755);
  const r = spawnSync(join(alone, "plugin"), [], { cwd: alone, env: { PATH: process.env.PATH ?? "" }, input: "", encoding: "utf8" });
  if (r.status !== 1 || !r.stderr.includes("not meant to be run by hand")) {
    console.error(`the bundle does not run alone (exit ${r.status}):\n${r.stderr}${r.error ?? ""}`);
    process.exit(1);
  }
} finally {
  rmSync(alone, { recursive: true, force: true });
}
renameSync(out + ".tmp", out);
console.log("built " + out);
