/**
 * The "simple JSON paths" of CRDs (printer columns, selectable fields, scale
 * paths): `.a.b`, `.a[0].b`, `.a['x.y']`, `.a["x"]`. Pure; a path that does not
 * parse yields undefined from `parseSimplePath`.
 */
export type PathStep = string | number;

export function parseSimplePath(path: string): PathStep[] | undefined {
  const steps: PathStep[] = [];
  let i = 0;
  const p = path.trim().replace(/^\{(.*)\}$/, "$1").replace(/^\$/, "");
  if (p === "") return undefined;
  while (i < p.length) {
    const c = p[i];
    if (c === ".") {
      let j = i + 1;
      while (j < p.length && p[j] !== "." && p[j] !== "[") {
        if (p[j] === "\\" && j + 1 < p.length) j++;
        j++;
      }
      const name = p.slice(i + 1, j).replace(/\\(.)/g, "$1");
      if (name === "") return undefined;
      steps.push(name);
      i = j;
    } else if (c === "[") {
      const close = p.indexOf("]", i);
      if (close < 0) return undefined;
      const inner = p.slice(i + 1, close).trim();
      const quoted = /^'(.*)'$|^"(.*)"$/.exec(inner);
      if (quoted) steps.push(quoted[1] ?? quoted[2]);
      else if (/^\d+$/.test(inner)) steps.push(Number(inner));
      else return undefined;
      i = close + 1;
    } else {
      return undefined;
    }
  }
  return steps;
}

export function readPath(obj: unknown, steps: readonly PathStep[]): unknown {
  let cur: unknown = obj;
  for (const s of steps) {
    if (typeof s === "number") {
      if (!Array.isArray(cur)) return undefined;
      cur = cur[s];
    } else {
      if (typeof cur !== "object" || cur === null || Array.isArray(cur)) return undefined;
      cur = Object.prototype.hasOwnProperty.call(cur, s) ? (cur as Record<string, unknown>)[s] : undefined;
    }
  }
  return cur;
}
