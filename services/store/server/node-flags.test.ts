import { describe, expect, it } from "vitest";
import { FlagError, parseFlags } from "../../../shared/cli/flags.ts";
import { nodeConfig, STORE_FLAGS } from "./node-flags.ts";
import { storeNodeArgs } from "./node-process.ts";

const config = (...args: string[]) => nodeConfig(parseFlags(args, STORE_FLAGS));

describe("store node flags: --removed-member-linger-max", () => {
  it("is unset by default (the node's own default applies)", () => {
    expect(config().removedMemberLingerMaxMs).toBeUndefined();
  });

  it.each([
    ["30s", 30_000],
    ["1500ms", 1500],
    ["2m", 120_000],
    ["0s", 0],
    ["5", 5000],
  ])("reads %s as %i ms", (text, ms) => {
    expect(config(`--removed-member-linger-max=${text}`).removedMemberLingerMaxMs).toBe(ms);
    expect(config("--removed-member-linger-max", text).removedMemberLingerMaxMs).toBe(ms);
  });

  it.each(["", "-5s", "10x", "s"])("refuses %j", (text) => {
    expect(() => config(`--removed-member-linger-max=${text}`)).toThrow(FlagError);
  });

  it("is what the process spawner passes", () => {
    const args = storeNodeArgs({ name: "n1", clientPort: 1, peerPort: 2, dataDir: "/d", initialCluster: "n1=http://127.0.0.1:2", removedMemberLingerMaxMs: 2500 });
    expect(args).toContain("--removed-member-linger-max=2500ms");
    expect(nodeConfig(parseFlags(args, STORE_FLAGS)).removedMemberLingerMaxMs).toBe(2500);
  });
});
