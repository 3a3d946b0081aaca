// Installs the npm packages when node_modules is missing or older than the lock file,
// so that `npm start` and `npm test` work on a fresh clone. Plain JS: runs before tsx exists.
import { execSync } from "node:child_process";
import process from "node:process";
import { existsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const marker = join(root, "node_modules", ".package-lock.json");
const lock = join(root, "package-lock.json");
const stale = !existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs + 1000);
// `npm install` rather than `npm ci`: the lock file leaves out the optional native
// accelerators of cbor-x on other platforms (their install scripts are not run here),
// which `npm ci` refuses as out of sync; the pure JavaScript fallbacks are used instead.
if (stale) {
  process.stderr.write("installing npm packages (npm install)...\n");
  execSync("npm install --no-audit --no-fund", { cwd: root, stdio: "inherit" });
}
