import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Guards principle 4: no source file outside shared/platform spells a platform
 * domain. Tests may compare against literal names only through the profile.
 */
const ROOT = join(import.meta.dirname, "..", "..");
const SCANNED = ["services", "shared", "deploy", "loadtest", "test"];
const FORBIDDEN = /\b(?:[a-z0-9-]+\.)*(?:plat\.io|k8s\.io|kubernetes\.io)\b|x-(?:plat|kubernetes)-[a-z]/;

function* sourceFiles(dir: string): Generator<string> {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of entries) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|js|mjs)$/.test(name)) yield path;
  }
}

describe("platform names", () => {
  it("are spelled only in shared/platform", () => {
    const offenders: string[] = [];
    for (const top of SCANNED) {
      for (const file of sourceFiles(join(ROOT, top))) {
        const rel = relative(ROOT, file);
        if (rel.startsWith(join("shared", "platform"))) continue;
        readFileSync(file, "utf8")
          .split("\n")
          .forEach((line, i) => {
            if (FORBIDDEN.test(line)) offenders.push(`${rel}:${i + 1}: ${line.trim()}`);
          });
      }
    }
    expect(offenders).toEqual([]);
  });
});
