/**
 * The admission flags of the real process (`services/embedded/main.ts`): `--help`
 * lists them, and an unknown plugin name fails start-up with the platform's message.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const MAIN = join(ROOT, "services", "embedded", "main.ts");
let dir: string;

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", MAIN, "--data-dir", dir, "--secure-port", "0", "--bind-address", "127.0.0.1", ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NODE_OPTIONS: "" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "admission-flags-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("admission flags of the apiserver process", () => {
  it("--help lists them", async () => {
    const r = await run(["--help"]);
    expect(r.code).toBe(0);
    for (const flag of ["--enable-admission-plugins", "--disable-admission-plugins", "--admission-control-config-file"]) expect(r.stdout).toContain(flag);
  });

  it("an unknown plugin name fails start-up with a clear message", async () => {
    const r = await run(["--enable-admission-plugins=NamespaceLifecycle,Bogus"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('enable-admission-plugins plugin "Bogus" is unknown');
    expect(r.stdout).not.toContain("API server listening");
  });
});
