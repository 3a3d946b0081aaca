// `--help` of every service, run as a real child process: every flag its parser accepts is
// listed, with its default when it has one, and an unknown flag is refused with exit status 2.
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { FlagSpec } from "../../shared/cli/flags.ts";
import { ALL_APISERVER_FLAGS } from "../../services/apiserver/server/options.ts";
import { CONTROLLER_MANAGER_FLAGS } from "../../services/controller-manager/main.ts";
import { STORE_COMMAND_FLAGS } from "../../services/store/server/command-flags.ts";

const ROOT = resolve(import.meta.dirname, "../..");

function run(main: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--import", "tsx", main, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_OPTIONS: "" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

/** Flag name → its help block (the flag line and the description under it). */
function helpBlocks(text: string): Map<string, string> {
  const blocks = new Map<string, string>();
  let current: string | undefined;
  for (const line of text.split("\n")) {
    const m = /^\s+--([a-z0-9-]+)(\s|$)/.exec(line);
    if (m) {
      current = m[1];
      blocks.set(current, line);
    } else if (current !== undefined && line.trim() !== "") blocks.set(current, `${blocks.get(current)}\n${line}`);
    else current = undefined;
  }
  return blocks;
}

const SERVICES: Array<{ name: string; main: string; flags: Record<string, FlagSpec> }> = [
  { name: "apiserver", main: "services/apiserver/main.ts", flags: ALL_APISERVER_FLAGS },
  { name: "embedded default", main: "services/embedded/main.ts", flags: ALL_APISERVER_FLAGS },
  { name: "store", main: "services/store/main.ts", flags: STORE_COMMAND_FLAGS },
  { name: "controller manager", main: "services/controller-manager/main.ts", flags: CONTROLLER_MANAGER_FLAGS },
];

describe("--help", () => {
  for (const s of SERVICES) {
    it(`${s.name}: lists every accepted flag with its default`, async () => {
      const { code, stdout } = await run(s.main, ["--help"]);
      expect(code).toBe(0);
      const blocks = helpBlocks(stdout);
      const missing = Object.keys(s.flags).filter((f) => !blocks.has(f));
      expect(missing).toEqual([]);
      for (const [name, spec] of Object.entries(s.flags)) {
        const d = spec.default;
        const shown = d !== undefined && d !== "" && !(Array.isArray(d) && d.length === 0);
        expect(blocks.get(name), name).toMatch(shown ? /\(default [^)]+\)/ : /^(?![\s\S]*\(default )/);
      }
      // Nothing listed that the parser would refuse.
      expect([...blocks.keys()].filter((f) => !(f in s.flags))).toEqual([]);
    });

    it(`${s.name}: refuses an unknown flag with status 2, naming it`, async () => {
      const { code, stderr } = await run(s.main, ["--no-such-flag=1"]);
      expect(code).toBe(2);
      expect(stderr).toContain("--no-such-flag");
    });
  }
});
