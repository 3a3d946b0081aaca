// `npm test`'s static checks: the type check and the linter run side by side
// (each is single-threaded; the machine has two cores). Each one's output is
// printed whole when it ends, so the two never interleave. Exits non-zero when
// either fails, after both have ended.
import { spawn } from "node:child_process";
import { Buffer } from "node:buffer";
import console from "node:console";
import process from "node:process";

const CHECKS = [
  { name: "typecheck", script: "typecheck" },
  { name: "lint", script: "lint" },
];

/** Runs `npm run <script>` with its output captured; resolves to its exit code. */
function run(check) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn("npm", ["run", "--silent", check.script], { stdio: ["ignore", "pipe", "pipe"] });
    const chunks = [];
    child.stdout.on("data", (c) => chunks.push(c));
    child.stderr.on("data", (c) => chunks.push(c));
    child.on("error", (err) => {
      chunks.push(Buffer.from(`${String(err)}\n`));
      resolve({ check, code: 1, output: Buffer.concat(chunks), seconds: 0 });
    });
    child.on("close", (code) => resolve({ check, code: code ?? 1, output: Buffer.concat(chunks), seconds: (Date.now() - started) / 1000 }));
  });
}

const results = await Promise.all(CHECKS.map(run));
for (const r of results) {
  process.stdout.write(r.output);
  console.log(`${r.check.name}: ${r.code === 0 ? "ok" : `failed (exit ${r.code})`} in ${r.seconds.toFixed(0)} s`);
}
process.exit(results.every((r) => r.code === 0) ? 0 : 1);
