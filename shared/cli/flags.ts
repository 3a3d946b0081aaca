/**
 * Command-line flags in the platform's style (the run-options pattern: each subsystem
 * contributes a table of flags, then completes and validates its options from the parsed
 * values). Forms: `--name=value` or `--name value`; booleans as `--flag`, `--flag=<bool>`
 * or `--flag <true|false>` (Go's ParseBool spellings); `list` flags split on commas and
 * accumulate over repetitions; `array` flags accumulate repetitions without splitting.
 * Unknown flags are an error naming the flag (`parseFlagSet`), or skipped together with
 * their values (`parseKnownFlags`, for a subsystem reading its share of a command line).
 */

export type FlagKind = "string" | "boolean" | "number" | "duration" | "list" | "array";

export interface FlagSpec {
  kind: FlagKind;
  default?: string | boolean | number | string[];
  help: string;
}

export type FlagValues = Record<string, string | boolean | number | string[] | undefined>;

/** Parsed values (defaults filled in) and the names of the flags given on the command line. */
export interface ParsedFlags {
  values: FlagValues;
  changed: ReadonlySet<string>;
}

/** A titled group of flags, as `--help` prints them. */
export interface FlagSection {
  title: string;
  flags: Record<string, FlagSpec>;
}

export class FlagError extends Error {}

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, "µs": 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go durations (`5m`, `1h30m`, `250ms`, `1.5s`, `10us`) in milliseconds; a bare number is seconds. */
export function parseDuration(text: string): number {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t) * 1000;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let pos = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(t)) !== null) {
    total += Number(m[1]) * UNITS[m[2]];
    pos = re.lastIndex;
  }
  if (pos !== t.length || t.length === 0) throw new FlagError(`invalid duration ${JSON.stringify(text)}`);
  return total;
}

/** Go's time.ParseDuration in milliseconds: a unit is required except for "0" (configuration files). */
export function parseGoDuration(text: string): number {
  const t = text.trim();
  if (t === "0") return 0;
  if (/^\d+(\.\d+)?$/.test(t)) throw new FlagError(`invalid duration ${JSON.stringify(text)}: missing unit`);
  return parseDuration(t);
}

/** Milliseconds as Go prints a duration (`5m0s`, `30s`, `250ms`, `0s`). */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0s";
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}

const TRUE = /^(1|t|T|TRUE|true|True)$/;
const FALSE = /^(0|f|F|FALSE|false|False)$/;

function parseBool(name: string, raw: string): boolean {
  if (TRUE.test(raw)) return true;
  if (FALSE.test(raw)) return false;
  throw new FlagError(`invalid value "${raw}" for --${name}: must be a boolean (true or false)`);
}

function defaults(specs: Record<string, FlagSpec>): FlagValues {
  const values: FlagValues = {};
  for (const [name, spec] of Object.entries(specs)) {
    if (spec.default !== undefined) values[name] = Array.isArray(spec.default) ? [...spec.default] : spec.default;
    else if (spec.kind === "list" || spec.kind === "array") values[name] = [];
  }
  return values;
}

function parse(argv: readonly string[], specs: Record<string, FlagSpec>, strict: boolean): ParsedFlags {
  const values = defaults(specs);
  const changed = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) {
      if (strict) throw new FlagError(`unexpected argument "${arg}"`);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
    if (!spec) {
      if (strict) throw new FlagError(`unknown flag: --${name}`);
      continue;
    }
    let raw: string | undefined = eq >= 0 ? arg.slice(eq + 1) : undefined;
    if (spec.kind === "boolean") {
      if (raw === undefined && /^(true|false)$/i.test(argv[i + 1] ?? "")) raw = argv[++i];
      values[name] = raw === undefined ? true : parseBool(name, raw);
      changed.add(name);
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
        if (raw.trim() === "" || !Number.isFinite(n)) throw new FlagError(`invalid value "${raw}" for --${name}: must be a number`);
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
      case "list":
      case "array": {
        // The first occurrence replaces the default; later ones add to it.
        const list = changed.has(name) ? (values[name] as string[]) : [];
        if (spec.kind === "list") list.push(...raw.split(",").map((s) => s.trim()).filter((s) => s !== ""));
        else list.push(raw);
        values[name] = list;
        break;
      }
    }
    changed.add(name);
  }
  return { values, changed };
}

/** Parses a whole command line: unknown flags and stray arguments are errors. */
export function parseFlagSet(argv: readonly string[], specs: Record<string, FlagSpec>): ParsedFlags {
  return parse(argv, specs, true);
}

/** Parses only the flags in `specs`; other flags and bare arguments are skipped. */
export function parseKnownFlags(argv: readonly string[], specs: Record<string, FlagSpec>): ParsedFlags {
  return parse(argv, specs, false);
}

export function parseFlags(argv: readonly string[], specs: Record<string, FlagSpec>): FlagValues {
  return parseFlagSet(argv, specs).values;
}

/** The union of sections' flags; a flag named by two sections must be declared alike. */
export function mergeSections(sections: readonly FlagSection[]): Record<string, FlagSpec> {
  const out: Record<string, FlagSpec> = {};
  for (const s of sections) {
    for (const [name, spec] of Object.entries(s.flags)) {
      const prev = out[name];
      if (prev && (prev.kind !== spec.kind || JSON.stringify(prev.default) !== JSON.stringify(spec.default))) {
        throw new Error(`flag --${name} is declared twice with different kinds or defaults`);
      }
      out[name] ??= spec;
    }
  }
  return out;
}

function formatDefault(spec: FlagSpec): string | undefined {
  const d = spec.default;
  if (d === undefined || (Array.isArray(d) && d.length === 0) || d === "") return undefined;
  if (spec.kind === "duration" && typeof d === "number") return formatDuration(d);
  if (Array.isArray(d)) return `[${d.join(",")}]`;
  return String(d);
}

const TYPE_NAMES: Record<FlagKind, string> = { string: "string", boolean: "", number: "int", duration: "duration", list: "strings", array: "stringArray" };

function flagLines(specs: Record<string, FlagSpec>): string[] {
  return Object.entries(specs)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, s]) => {
      const type = TYPE_NAMES[s.kind];
      const dflt = formatDefault(s);
      return `      --${name}${type ? ` ${type}` : ""}\n                ${s.help}${dflt !== undefined ? ` (default ${dflt})` : ""}`;
    });
}

/** `--help` text: every flag with its type and default, sorted by name (grouped when given sections). */
export function usage(specs: Record<string, FlagSpec> | readonly FlagSection[]): string {
  if (!Array.isArray(specs)) return flagLines(specs as Record<string, FlagSpec>).join("\n");
  const seen = new Set<string>();
  return (specs as readonly FlagSection[])
    .map((s) => {
      const own = Object.fromEntries(Object.entries(s.flags).filter(([n]) => !seen.has(n)));
      for (const n of Object.keys(own)) seen.add(n);
      return `${s.title} flags:\n\n${flagLines(own).join("\n")}`;
    })
    .join("\n\n");
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
