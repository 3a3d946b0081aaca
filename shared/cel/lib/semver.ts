/**
 * The platform's semver library: `semver(<string>)`, `semver(<string>, <bool>)`
 * (normalize: drop a leading `v`, fill in a missing minor and patch, drop
 * leading zeros), `isSemver` with the same overloads, and the methods major,
 * minor, patch, compareTo, isGreaterThan, isLessThan of `kubernetes.Semver`.
 * Parsing and precedence are Semantic Versioning 2.0.0 (build metadata is
 * ignored in comparisons). Error texts are the platform's, without the value.
 */
import type { Environment } from "@marcbachmann/cel-js";
import { CelEvaluationError } from "../errors.ts";

export const SEMVER_TYPE = "kubernetes.Semver";

const NUMERIC = /^[0-9]+$/;
const IDENT = /^[0-9A-Za-z-]+$/;

export class Semver {
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: readonly string[],
    readonly build: readonly string[],
  ) {}

  compareTo(o: Semver): number {
    for (const [a, b] of [
      [this.major, o.major],
      [this.minor, o.minor],
      [this.patch, o.patch],
    ] as const) {
      if (a !== b) return a < b ? -1 : 1;
    }
    if (this.pre.length === 0 || o.pre.length === 0) return this.pre.length === o.pre.length ? 0 : this.pre.length === 0 ? 1 : -1;
    for (let i = 0; i < Math.min(this.pre.length, o.pre.length); i++) {
      const c = comparePre(this.pre[i], o.pre[i]);
      if (c !== 0) return c;
    }
    return this.pre.length === o.pre.length ? 0 : this.pre.length < o.pre.length ? -1 : 1;
  }

  toString(): string {
    const pre = this.pre.length > 0 ? `-${this.pre.join(".")}` : "";
    const build = this.build.length > 0 ? `+${this.build.join(".")}` : "";
    return `${this.major}.${this.minor}.${this.patch}${pre}${build}`;
  }
}

function comparePre(a: string, b: string): number {
  const an = NUMERIC.test(a);
  const bn = NUMERIC.test(b);
  if (an && bn) {
    const x = BigInt(a);
    const y = BigInt(b);
    return x === y ? 0 : x < y ? -1 : 1;
  }
  if (an !== bn) return an ? -1 : 1;
  return a === b ? 0 : a < b ? -1 : 1;
}

const fail = (msg: string): never => {
  throw new CelEvaluationError(msg);
};

const UINT64_MAX = 2n ** 64n - 1n;

function versionNumber(part: string, name: string): bigint {
  if (!NUMERIC.test(part)) fail(`Invalid character(s) found in ${name} number`);
  if (part.length > 1 && part.startsWith("0")) fail(`${name[0].toUpperCase()}${name.slice(1)} number must not contain leading zeroes`);
  const n = BigInt(part);
  if (n > UINT64_MAX) fail(`Invalid character(s) found in ${name} number`);
  return n;
}

/** Parses strict Semantic Versioning text. */
export function parseSemver(s: string): Semver {
  if (s.length === 0) fail("Version string empty");
  const parts = s.split(".");
  if (parts.length < 3) fail("No Major.Minor.Patch elements found");
  const major = versionNumber(parts[0], "major");
  const minor = versionNumber(parts[1], "minor");
  let patchText = parts.slice(2).join(".");
  let build: string[] = [];
  let pre: string[] = [];
  const plus = patchText.indexOf("+");
  if (plus >= 0) {
    build = patchText.slice(plus + 1).split(".");
    patchText = patchText.slice(0, plus);
    for (const b of build) {
      if (b === "") fail("Build meta data is empty");
      if (!IDENT.test(b)) fail("Invalid character(s) found in build meta data");
    }
  }
  const dash = patchText.indexOf("-");
  if (dash >= 0) {
    pre = patchText.slice(dash + 1).split(".");
    patchText = patchText.slice(0, dash);
    for (const p of pre) {
      if (p === "") fail("Prerelease meta data is empty");
      if (!IDENT.test(p)) fail("Invalid character(s) found in prerelease");
      if (NUMERIC.test(p) && p.length > 1 && p.startsWith("0")) fail("Numeric PreRelease version must not contain leading zeroes");
    }
  }
  const patch = versionNumber(patchText, "patch");
  return new Semver(major, minor, patch, pre, build);
}

/** The platform's normalization before strict parsing. */
export function parseSemverNormalized(s: string): Semver {
  const text = s.startsWith("v") ? s.slice(1) : s;
  const parts = splitN(text, ".", 3).map((p) => {
    if (p.length <= 1) return p;
    const trimmed = p.replace(/^0+/, "");
    return trimmed === "" || !/^[0-9]/.test(trimmed) ? `0${trimmed}` : trimmed;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1])) fail("short version cannot contain PreRelease/Build meta data");
    while (parts.length < 3) parts.push("0");
  }
  return parseSemver(parts.join("."));
}

function splitN(s: string, sep: string, n: number): string[] {
  const all = s.split(sep);
  return all.length <= n ? all : [...all.slice(0, n - 1), all.slice(n - 1).join(sep)];
}

const parse = (s: string, normalize: boolean): Semver => (normalize ? parseSemverNormalized(s) : parseSemver(s));

const succeeds = (s: string, normalize: boolean): boolean => {
  try {
    parse(s, normalize);
    return true;
  } catch {
    return false;
  }
};

/** Registers kubernetes.Semver and its functions. */
export function registerSemver(env: Environment): Environment {
  const S = SEMVER_TYPE;
  return env
    .registerType(S, Semver)
    .registerFunction(`semver(string): ${S}`, (s: string) => parse(s, false))
    .registerFunction(`semver(string, bool): ${S}`, (s: string, n: boolean) => parse(s, n))
    .registerFunction("isSemver(string): bool", (s: string) => succeeds(s, false))
    .registerFunction("isSemver(string, bool): bool", (s: string, n: boolean) => succeeds(s, n))
    .registerFunction(`${S}.major(): int`, (v: Semver) => v.major)
    .registerFunction(`${S}.minor(): int`, (v: Semver) => v.minor)
    .registerFunction(`${S}.patch(): int`, (v: Semver) => v.patch)
    .registerFunction(`${S}.compareTo(${S}): int`, (a: Semver, b: Semver) => BigInt(a.compareTo(b)))
    .registerFunction(`${S}.isGreaterThan(${S}): bool`, (a: Semver, b: Semver) => a.compareTo(b) === 1)
    .registerFunction(`${S}.isLessThan(${S}): bool`, (a: Semver, b: Semver) => a.compareTo(b) === -1)
    .registerOperator(`${S} == ${S}`, (a: Semver, b: Semver) => a.compareTo(b) === 0);
}
