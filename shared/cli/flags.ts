/**
 * Command-line flags in the platform's style: `--name=value` or `--name value`,
 * booleans as `--flag`, `--flag=true|false`, repeatable flags collected in order.
 * Unknown flags are an error naming the flag.
 */

export type FlagKind = "string" | "boolean" | "number" | "duration" | "list";

export interface FlagSpec {
  kind: FlagKind;
  default?: string | boolean | number | string[];
  help: string;
}

export type FlagValues = Record<string, string | boolean | number | string[] | undefined>;

export class FlagError extends Error {}

/** Go-style durations (`5m`, `1h30m`, `250ms`, `30s`) in milliseconds; a bare number is seconds. */
export function parseDuration(text: string): number {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  let total = 0;
  let consumed = 0;
  for (const m of text.matchAll(re)) {
    const n = Number(m[1]);
    total += m[2] === "h" ? n * 3_600_000 : m[2] === "m" ? n * 60_000 : m[2] === "s" ? n * 1000 : n;
    consumed += m[0].length;
  }
  if (consumed !== text.length || text.length === 0) throw new FlagError(`invalid duration "${text}"`);
  return total;
}

export function parseFlags(argv: readonly string[], specs: Record<string, FlagSpec>): FlagValues {
  const values: FlagValues = {};
  for (const [name, spec] of Object.entries(specs)) {
    if (spec.default !== undefined) values[name] = Array.isArray(spec.default) ? [...spec.default] : spec.default;
    else if (spec.kind === "list") values[name] = [];
  }
  const seenLists = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) throw new FlagError(`unexpected argument "${arg}"`);
    const eq = arg.indexOf("=");
    const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    const spec = specs[name];
    if (!spec) throw new FlagError(`unknown flag: --${name}`);
    let raw: string | undefined = eq >= 0 ? arg.slice(eq + 1) : undefined;
    if (spec.kind === "boolean") {
      if (raw === undefined) values[name] = true;
      else if (raw === "true" || raw === "false") values[name] = raw === "true";
      else throw new FlagError(`invalid value "${raw}" for --${name}: must be true or false`);
      continue;
    }
    if (raw === undefined) {
      raw = argv[++i];
      if (raw === undefined) throw new FlagError(`flag needs an argument: --${name}`);
    }
    switch (spec.kind) {
      case "string":
        values[name] = raw;
        break;
      case "number": {
        const n = Number(raw);
        if (!Number.isFinite(n)) throw new FlagError(`invalid value "${raw}" for --${name}: must be a number`);
        values[name] = n;
        break;
      }
      case "duration":
        try {
          values[name] = parseDuration(raw);
        } catch (err) {
          throw new FlagError(`invalid value "${raw}" for --${name}: ${(err as Error).message}`);
        }
        break;
      case "list": {
        if (!seenLists.has(name)) {
          values[name] = [];
          seenLists.add(name);
        }
        (values[name] as string[]).push(...raw.split(",").filter((s) => s !== ""));
        break;
      }
    }
  }
  return values;
}

export function usage(specs: Record<string, FlagSpec>): string {
  return Object.entries(specs)
    .map(([name, s]) => `  --${name}${s.kind === "boolean" ? "" : ` <${s.kind}>`}\n      ${s.help}${s.default !== undefined ? ` (default ${JSON.stringify(s.default)})` : ""}`)
    .join("\n");
}

/**
 * Removes the flags another component parses (and their separate values) from an
 * argument list, so each parser sees only its own. `isBoolean` tells which foreign
 * flags take no separate value.
 */
export function withoutFlags(argv: readonly string[], isForeign: (name: string) => boolean, isBoolean: (name: string) => boolean): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) {
      out.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (!isForeign(name)) {
      out.push(arg);
      continue;
    }
    if (eq >= 0) continue;
    const next = argv[i + 1];
    if (isBoolean(name)) {
      if (next !== undefined && /^(true|false)$/i.test(next)) i++;
    } else i++;
  }
  return out;
}
