/**
 * Command-line arguments in the style of the platform's CLI (pflag): long flags as
 * `--name value` or `--name=value`, shorthands as `-n value`, `-nvalue` or `-n=value`,
 * booleans as `--flag`, `--flag=false` or `-A`; `array` flags accumulate repetitions
 * (and split on commas when declared `list`); `--` ends flag parsing; `-` alone is an
 * argument (standard input for `-f`). Flags may appear before or after positional
 * arguments. Unknown flags are an `ArgsError` naming the flag as pflag does.
 */

export type ArgKind = "string" | "bool" | "array" | "list";

export interface FlagDef {
  name: string;
  short?: string;
  kind: ArgKind;
  default?: string | boolean;
  help: string;
}

export interface ParsedArgs {
  positionals: string[];
  /** Last value of string flags, booleans, or all values of array/list flags. */
  values: Map<string, string | boolean | string[]>;
  /** Names of flags given on the command line. */
  changed: Set<string>;
}

export class ArgsError extends Error {}

const TRUE = /^(1|t|T|TRUE|true|True)$/;
const FALSE = /^(0|f|F|FALSE|false|False)$/;

function setValue(out: ParsedArgs, def: FlagDef, raw: string | undefined): void {
  if (def.kind === "bool") {
    const v = raw === undefined ? true : TRUE.test(raw) ? true : FALSE.test(raw) ? false : undefined;
    if (v === undefined) throw new ArgsError(`invalid argument "${raw}" for "--${def.name}" flag: strconv.ParseBool: parsing "${raw}": invalid syntax`);
    out.values.set(def.name, v);
  } else if (def.kind === "array" || def.kind === "list") {
    const prev = out.changed.has(def.name) ? (out.values.get(def.name) as string[]) : [];
    const add = def.kind === "list" ? (raw ?? "").split(",").filter((s) => s !== "") : [raw ?? ""];
    out.values.set(def.name, [...prev, ...add]);
  } else out.values.set(def.name, raw ?? "");
  out.changed.add(def.name);
}

/** Parses `argv` against `defs`; `stopAtFirstPositional` leaves everything after the first argument untouched. */
export function parseArgs(argv: readonly string[], defs: readonly FlagDef[], opts: { allowUnknown?: boolean } = {}): ParsedArgs {
  const byName = new Map(defs.map((d) => [d.name, d]));
  const byShort = new Map(defs.filter((d) => d.short).map((d) => [d.short as string, d]));
  const out: ParsedArgs = { positionals: [], values: new Map(), changed: new Set() };
  for (const d of defs) if (d.default !== undefined) out.values.set(d.name, d.default);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      out.positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
      const def = byName.get(name);
      if (!def) {
        if (opts.allowUnknown) continue;
        throw new ArgsError(`unknown flag: --${name}`);
      }
      let raw = eq >= 0 ? arg.slice(eq + 1) : undefined;
      if (raw === undefined && def.kind !== "bool") {
        if (i + 1 >= argv.length) throw new ArgsError(`flag needs an argument: --${name}`);
        raw = argv[++i];
      }
      setValue(out, def, raw);
      continue;
    }
    if (arg.startsWith("-") && arg.length > 1) {
      // A run of shorthands: booleans may be grouped (-Aw); a value flag takes the rest or the next argument.
      for (let j = 1; j < arg.length; j++) {
        const c = arg[j];
        const def = byShort.get(c);
        if (!def) {
          if (opts.allowUnknown) break;
          throw new ArgsError(`unknown shorthand flag: '${c}' in ${arg}`);
        }
        const rest = arg.slice(j + 1);
        if (def.kind === "bool") {
          if (rest.startsWith("=")) {
            setValue(out, def, rest.slice(1));
            break;
          }
          setValue(out, def, undefined);
          continue;
        }
        let raw = rest.startsWith("=") ? rest.slice(1) : rest;
        if (raw === "") {
          if (i + 1 >= argv.length) throw new ArgsError(`flag needs an argument: '${c}' in -${c}`);
          raw = argv[++i];
        }
        setValue(out, def, raw);
        break;
      }
      continue;
    }
    out.positionals.push(arg);
  }
  return out;
}

export function str(a: ParsedArgs, name: string): string | undefined {
  const v = a.values.get(name);
  return typeof v === "string" ? v : undefined;
}

export function bool(a: ParsedArgs, name: string): boolean {
  return a.values.get(name) === true;
}

export function list(a: ParsedArgs, name: string): string[] {
  const v = a.values.get(name);
  return Array.isArray(v) ? v : [];
}

/** Flag help as the platform's CLI prints it: `-n, --namespace='': text`. */
export function flagHelp(defs: readonly FlagDef[]): string {
  return defs
    .slice()
    .sort((x, y) => x.name.localeCompare(y.name))
    .map((d) => {
      const dflt = d.kind === "bool" ? String(d.default ?? false) : d.kind === "array" || d.kind === "list" ? "[]" : `'${String(d.default ?? "")}'`;
      const names = d.short ? `-${d.short}, --${d.name}` : `--${d.name}`;
      return `    ${names}=${dflt}:\n\t${d.help}`;
    })
    .join("\n\n");
}
