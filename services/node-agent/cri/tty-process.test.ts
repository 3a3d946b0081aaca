/**
 * tty-process.ts: words quoted for `sh -c` (table), and real commands on a terminal:
 * the first size is in place before the command looks, a later resize reaches the
 * command's terminal, and the exit code comes through.
 */
import { execFileSync } from "node:child_process";
import type { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { shellQuote, spawnTtyProcess } from "./tty-process.ts";

function collect(stream: Readable | null): () => string {
  let out = "";
  stream?.on("data", (d: Buffer) => (out += d.toString()));
  return () => out;
}

describe("shellQuote", () => {
  const cases: Array<[string, string]> = [
    ["plain", "plain"],
    ["two words", "two words"],
    ["it's", "it's"],
    ["$HOME `x` \"q\"", "$HOME `x` \"q\""],
    ["", ""],
  ];
  for (const [word, echoed] of cases) it(JSON.stringify(word), () => expect(execFileSync("sh", ["-c", `printf %s ${shellQuote(word)}`]).toString()).toBe(echoed));
});

describe("spawnTtyProcess", () => {
  it("starts the command on a terminal of the first size, follows a resize, and gives its exit code", async () => {
    const proc = spawnTtyProcess(["sh", "-c", "stty size; read line; stty size; exit 5"], 5_000);
    const out = collect(proc.stdout);
    void proc.resize?.({ width: 90, height: 30 });
    await expect.poll(out, { timeout: 5_000 }).toContain("30 90");
    await proc.resize?.({ width: 40, height: 12 });
    proc.stdin?.write("go\n");
    expect(await proc.done).toEqual({ exitCode: 5 });
    expect(out()).toMatch(/30 90[\s\S]*12 40/);
  });

  it("starts without a size after the wait, and kill ends it", async () => {
    const proc = spawnTtyProcess(["sh", "-c", "stty size; sleep 30"], 100);
    const out = collect(proc.stdout);
    await expect.poll(out, { timeout: 5_000 }).toContain("0 0");
    proc.kill?.();
    expect(await proc.done).toEqual({ exitCode: 128 + 9 });
  });
});
