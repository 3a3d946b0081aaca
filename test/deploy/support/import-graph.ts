/**
 * The files a TypeScript entry point loads: relative imports (static, `export from` and
 * literal dynamic imports) followed transitively, and the bare package names imported.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";

const IMPORT = /(?:import|export)\s+(?:type\s+)?(?:[^"';]*?\sfrom\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

export interface ImportGraph {
  /** Files reached, relative to root. */
  files: string[];
  /** Package names (`@scope/name` or `name`) imported by them, node builtins excluded. */
  packages: string[];
}

export function importGraph(root: string, entries: readonly string[]): ImportGraph {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const queue = entries.map((e) => resolve(root, e));
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!/\.(ts|js|mjs)$/.test(file)) continue;
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2];
      // `import type` only exists for the type checker.
      if (/^(?:import|export)\s+type\s/.test(m[0])) continue;
      if (spec.startsWith(".")) {
        const target = resolve(dirname(file), spec);
        if (!existsSync(target)) throw new Error(`${relative(root, file)} imports missing ${spec}`);
        queue.push(target);
      } else if (!spec.startsWith("node:")) {
        packages.add(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]);
      }
    }
  }
  return { files: [...seen].map((f) => relative(root, f)).sort(), packages: [...packages].sort() };
}
