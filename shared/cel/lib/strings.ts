/**
 * String extensions of the platform's CEL (version 2 of the strings library)
 * that the evaluator lacks: `charAt(int)`, `replace(string, string)`,
 * `replace(string, string, int)`, `strings.quote(string)` and
 * `<string>.format(<list>)` with the verbs %s %d %f %e %x %X %o %b %%.
 * Indexes count code points, as the platform does.
 */
import type { Environment } from "@marcbachmann/cel-js";
import { Duration, UnsignedInt } from "@marcbachmann/cel-js/evaluator";
import { CelEvaluationError } from "../errors.ts";

function charAt(s: string, i: bigint): string {
  const chars = [...s];
  if (i < 0n || i > BigInt(chars.length)) throw new CelEvaluationError(`index out of range: ${i}`);
  return i === BigInt(chars.length) ? "" : chars[Number(i)];
}

function replace(s: string, from: string, to: string, n: bigint): string {
  if (n < 0n) return s.split(from).join(to);
  let out = "";
  let rest = s;
  for (let k = 0n; k < n; k++) {
    const at = rest.indexOf(from);
    if (at < 0) break;
    out += rest.slice(0, at) + to;
    rest = rest.slice(at + from.length);
    if (from === "") {
      // an empty pattern matches before each code point
      if (rest === "") return out;
      const cp = [...rest][0];
      out += cp;
      rest = rest.slice(cp.length);
    }
  }
  return out + rest;
}

const QUOTE_ESCAPES: Readonly<Record<string, string>> = { "\x07": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v", "\\": "\\\\", '"': '\\"' };

function quote(s: string): string {
  let out = '"';
  for (const ch of s) out += QUOTE_ESCAPES[ch] ?? (ch === "\ufffd" || /\p{Cs}/u.test(ch) ? "\ufffd" : ch);
  return `${out}"`;
}

/** The text of a value as `%s` prints it. */
function display(v: unknown): string {
  if (typeof v === "string") return v;
  if (typeof v === "bigint" || typeof v === "boolean") return String(v);
  if (typeof v === "number") return Number.isInteger(v) && Math.abs(v) < 1e21 ? String(v) : String(v);
  if (v === null) return "null";
  if (v instanceof UnsignedInt) return String(v.value);
  if (v instanceof Uint8Array) return Buffer.from(v).toString("utf8");
  if (v instanceof Date) return v.toISOString().replace(".000Z", "Z");
  if (v instanceof Duration) return v.toString();
  if (Array.isArray(v)) return `[${v.map(display).join(", ")}]`;
  if (v instanceof Map) return `{${[...(v as Map<unknown, unknown>).entries()].map(([k, x]) => `${display(k)}: ${display(x)}`).join(", ")}}`;
  if (typeof v === "object") {
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto === Object.prototype || proto === null)
      return `{${Object.entries(v)
        .map(([k, x]) => `${k}: ${display(x)}`)
        .join(", ")}}`;
  }
  return String(v);
}

function integer(v: unknown, verb: string): bigint {
  if (typeof v === "bigint") return v;
  if (v instanceof UnsignedInt) return v.value;
  throw new CelEvaluationError(`error during formatting: ${verb === "d" ? "decimal" : verb === "b" ? "binary" : verb === "o" ? "octal" : "integer"} clause can only be used on integers`);
}

function double(v: unknown, verb: string): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof UnsignedInt) return Number(v.value);
  throw new CelEvaluationError(`error during formatting: ${verb === "e" ? "scientific" : "fixed-point"} clause can only be used on doubles`);
}

function format(template: string, args: readonly unknown[]): string {
  let out = "";
  let next = 0;
  const take = (): unknown => {
    if (next >= args.length) throw new CelEvaluationError(`index ${next} out of range`);
    return args[next++];
  };
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c !== "%") {
      out += c;
      continue;
    }
    let j = i + 1;
    let precision: number | undefined;
    const m = /^\.([0-9]+)/.exec(template.slice(j));
    if (m) {
      precision = Number(m[1]);
      j += m[0].length;
    }
    const verb = template[j];
    i = j;
    switch (verb) {
      case "%":
        out += "%";
        break;
      case "s":
        out += display(take());
        break;
      case "d":
        out += integer(take(), verb).toString();
        break;
      case "x":
      case "X": {
        const v = take();
        const text = typeof v === "string" ? Buffer.from(v, "utf8").toString("hex") : v instanceof Uint8Array ? Buffer.from(v).toString("hex") : integer(v, verb).toString(16);
        out += verb === "X" ? text.toUpperCase() : text;
        break;
      }
      case "o":
        out += integer(take(), verb).toString(8);
        break;
      case "b": {
        const v = take();
        out += typeof v === "boolean" ? String(v) : integer(v, verb).toString(2);
        break;
      }
      case "f":
        out += double(take(), verb).toFixed(precision ?? 6);
        break;
      case "e":
        out += double(take(), verb)
          .toExponential(precision ?? 6)
          .replace(/e([+-])(\d)$/, "e$10$2");
        break;
      default:
        throw new CelEvaluationError(`could not parse formatting clause: unrecognized formatting clause "${verb ?? ""}"`);
    }
  }
  return out;
}

class StringsNamespace {}

/** Registers the string extensions. */
export function registerStrings(env: Environment): Environment {
  return env
    .registerType("kubernetes.StringsNamespace", StringsNamespace)
    .registerConstant("strings", "kubernetes.StringsNamespace", new StringsNamespace())
    .registerFunction("string.charAt(int): string", charAt)
    .registerFunction("string.replace(string, string): string", (s: string, a: string, b: string) => replace(s, a, b, -1n))
    .registerFunction("string.replace(string, string, int): string", replace)
    .registerFunction("kubernetes.StringsNamespace.quote(string): string", (_ns: StringsNamespace, s: string) => quote(s))
    .registerFunction("string.format(list): string", (s: string, args: unknown[]) => format(s, args));
}
