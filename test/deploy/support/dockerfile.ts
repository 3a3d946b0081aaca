/**
 * Just enough of the Dockerfile and .dockerignore formats to check them without Docker:
 * instructions (continuations joined, comments dropped; exec-form arguments parsed as
 * JSON) and ignore patterns (last match wins, `!` re-includes, `*` and `**` globs).
 */
export interface Instruction {
  op: string;
  /** Raw text after the instruction name. */
  rest: string;
  /** Exec form (`["a", "b"]`) parsed; undefined for the shell form. */
  exec?: string[];
}

export function parseDockerfile(text: string): Instruction[] {
  const lines = text.replace(/\\\n/g, " ").split("\n");
  const out: Instruction[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const m = /^(\w+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const op = m[1].toUpperCase();
    let rest = m[2].trim();
    if (op === "HEALTHCHECK") rest = rest.replace(/^(--\S+\s+)*CMD\s+/, "");
    let exec: string[] | undefined;
    if (rest.startsWith("[")) exec = JSON.parse(rest) as string[];
    out.push({ op, rest, exec });
  }
  return out;
}

/** Source paths of COPY instructions from the build context (not `--from` stages). */
export function copySources(ins: readonly Instruction[]): string[] {
  return ins
    .filter((i) => i.op === "COPY" && !/--from=/.test(i.rest))
    .flatMap((i) => {
      const parts = i.rest.split(/\s+/).filter((p) => !p.startsWith("--"));
      return parts.slice(0, -1);
    });
}

function globToRegExp(pattern: string): RegExp {
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "*" && pattern[i + 1] === "*") {
      re += ".*";
      i++;
      if (pattern[i + 1] === "/") i++;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  // A pattern also matches everything under a matched directory.
  return new RegExp(`^${re}(/.*)?$`);
}

/** Whether `path` (relative to the context) is sent to the build under these ignore rules. */
export function includedInContext(ignoreText: string, path: string): boolean {
  let included = true;
  for (const raw of ignoreText.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const negated = line.startsWith("!");
    const pattern = (negated ? line.slice(1) : line).replace(/^\//, "");
    if (globToRegExp(pattern).test(path)) included = negated;
  }
  return included;
}
