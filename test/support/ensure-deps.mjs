// Prepares a fresh clone for `npm start` and `npm test`. Plain JS: runs before tsx exists.
// - npm packages: installed when node_modules is missing or older than the lock file.
// - with --system (the pretest step): the Debian packages the tests start for real
//   (redis-server, etcd, etcdctl, haproxy, python3-kubernetes). Missing ones are
//   installed with apt-get when running as root; otherwise it fails in one line
//   naming what to install. No test skips for a missing tool.
import { execSync, spawnSync } from "node:child_process";
import process from "node:process";
import { existsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Debian package → how to tell it is present. */
const SYSTEM_PACKAGES = [
  { pkg: "redis-server", present: () => onPath("redis-server") },
  { pkg: "etcd-client", present: () => onPath("etcdctl") },
  { pkg: "etcd-server", present: () => onPath("etcd") },
  { pkg: "haproxy", present: () => onPath("haproxy") },
  { pkg: "python3-kubernetes", present: () => spawnSync("/usr/bin/python3", ["-c", "import kubernetes"], { stdio: "ignore" }).status === 0 },
];

function onPath(cmd) {
  return spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;
}

function ensureSystemPackages() {
  const missing = SYSTEM_PACKAGES.filter((p) => !p.present()).map((p) => p.pkg);
  if (missing.length === 0) return;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (!isRoot || !onPath("apt-get")) {
    process.stderr.write(`missing system packages: run as root \`apt-get install -y ${missing.join(" ")}\` (Debian), then npm test again\n`);
    process.exit(1);
  }
  process.stderr.write(`installing system packages (apt-get): ${missing.join(" ")}\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execSync("apt-get update -qq", { stdio: "inherit", env });
  execSync(`apt-get install -y -qq ${missing.join(" ")}`, { stdio: "inherit", env });
  const still = SYSTEM_PACKAGES.filter((p) => !p.present()).map((p) => p.pkg);
  if (still.length > 0) {
    process.stderr.write(`apt-get did not provide: ${still.join(" ")}\n`);
    process.exit(1);
  }
}

function ensureNpmPackages() {
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
}

if (process.argv.includes("--system")) ensureSystemPackages();
ensureNpmPackages();
