/**
 * JSONPath templates as the platform's CLI takes them (`-o jsonpath=...`): literal text
 * with `{expression}` parts; expressions are paths from the root or `@` (`.a.b`,
 * `['a.b']`, `[0]`, `[-1]`, `[1:3]`, `[*]`, `..name`, `[?(@.x=="y")]`, `[?(@.x)]`),
 * quoted literals (`{"\n"}`) and `{range <path>}...{end}` blocks. Several results of one
 * expression are joined by spaces; strings print raw, other values as JSON. A bad
 * template is a `JsonPathError` with the reason.
 */

export class JsonPathError extends Error {}

type Step =
  | { t: "field"; name: string }
  | { t: "wild" }
  | { t: "index"; i: number }
  | { t: "slice"; start?: number; end?: number }
  | { t: "recurse"; name: string }
  | { t: "filter"; path: Step[]; op?: string; value?: unknown };

type Node = { t: "text"; text: string } | { t: "expr"; path: Step[] } | { t: "literal"; text: string } | { t: "range"; path: Step[]; body: Node[] };

function parseLiteral(raw: string): string {
  try {
    return JSON.parse(raw.startsWith("'") ? `"${raw.slice(1, -1).replace(/"/g, '\\"')}"` : raw) as string;
  } catch {
    throw new JsonPathError(`invalid literal ${raw}`);
  }
}

function parsePath(src: string): Step[] {
  let s = src.trim();
  if (s.startsWith("$")) s = s.slice(1);
  else if (s.startsWith("@")) s = s.slice(1);
  const steps: Step[] = [];
  let i = 0;
  while (i < s.length) {
    if (s.startsWith("..", i)) {
      const m = /^[A-Za-z0-9_-]+/.exec(s.slice(i + 2));
      if (!m) throw new JsonPathError(`unrecognized identifier after ".." in ${src}`);
      steps.push({ t: "recurse", name: m[0] });
      i += 2 + m[0].length;
    } else if (s[i] === ".") {
      const m = /^(\*|[A-Za-z0-9_$\\/-]+)/.exec(s.slice(i + 1));
      if (!m) {
        if (i + 1 === s.length) break;
        throw new JsonPathError(`unrecognized character in ${src} at ${i + 1}`);
      }
      steps.push(m[0] === "*" ? { t: "wild" } : { t: "field", name: m[0] });
      i += 1 + m[0].length;
    } else if (s[i] === "[") {
      const close = findClose(s, i);
      const inner = s.slice(i + 1, close).trim();
      i = close + 1;
      if (inner === "*") steps.push({ t: "wild" });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ t: "field", name: parseLiteral(inner) });
      else if (/^-?\d+$/.test(inner)) steps.push({ t: "index", i: Number(inner) });
      else if (/^-?\d*:-?\d*$/.test(inner)) {
        const [a, b] = inner.split(":");
        steps.push({ t: "slice", start: a === "" ? undefined : Number(a), end: b === "" ? undefined : Number(b) });
      } else if (inner.startsWith("?(") && inner.endsWith(")")) steps.push(parseFilter(inner.slice(2, -1)));
      else throw new JsonPathError(`invalid array index ${inner}`);
    } else if (/\s/.test(s[i])) i++;
    else {
      const m = /^[A-Za-z0-9_-]+/.exec(s.slice(i));
      if (!m || steps.length > 0) throw new JsonPathError(`unrecognized character in ${src} at ${i}`);
      steps.push({ t: "field", name: m[0] });
      i += m[0].length;
    }
  }
  return steps;
}

function findClose(s: string, open: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "[") depth++;
    else if (c === "]" && --depth === 0) return i;
  }
  throw new JsonPathError(`unterminated array in ${s}`);
}

function parseFilter(expr: string): Step {
  const m = /^\s*(@[^=!<>]*?)\s*(==|!=|<=|>=|<|>)\s*(.+?)\s*$/.exec(expr);
  if (!m) return { t: "filter", path: parsePath(expr) };
  const raw = m[3];
  const value = /^['"]/.test(raw) ? parseLiteral(raw) : /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw === "true" ? true : raw === "false" ? false : parsePath(raw);
  return { t: "filter", path: parsePath(m[1]), op: m[2], value };
}

function recurse(v: unknown, name: string, out: unknown[]): void {
  if (Array.isArray(v)) for (const x of v) recurse(x, name, out);
  else if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (name in o) out.push(o[name]);
    for (const x of Object.values(o)) recurse(x, name, out);
  }
}

function compare(a: unknown, op: string, b: unknown): boolean {
  switch (op) {
    case "==":
      return a === b || (a !== undefined && String(a) === String(b) && typeof b !== "number");
    case "!=":
      return !compare(a, "==", b);
    case "<":
      return Number(a) < Number(b);
    case ">":
      return Number(a) > Number(b);
    case "<=":
      return Number(a) <= Number(b);
    default:
      return Number(a) >= Number(b);
  }
}

function evaluate(steps: Step[], roots: unknown[]): unknown[] {
  let cur = roots;
  for (const st of steps) {
    const next: unknown[] = [];
    for (const v of cur) {
      if (st.t === "field") {
        if (v && typeof v === "object" && !Array.isArray(v) && st.name in (v as object)) next.push((v as Record<string, unknown>)[st.name]);
      } else if (st.t === "wild") {
        if (Array.isArray(v)) next.push(...v);
        else if (v && typeof v === "object") next.push(...Object.values(v));
      } else if (st.t === "index") {
        if (Array.isArray(v)) {
          const i = st.i < 0 ? v.length + st.i : st.i;
          if (i < 0 || i >= v.length) throw new JsonPathError(`array index out of bounds: index ${st.i}, length ${v.length}`);
          next.push(v[i]);
        }
      } else if (st.t === "slice") {
        if (Array.isArray(v)) next.push(...v.slice(st.start, st.end));
      } else if (st.t === "recurse") recurse(v, st.name, next);
      else {
        const items = Array.isArray(v) ? v : [v];
        for (const item of items) {
          const left = evaluate(st.path, [item]);
          if (st.op === undefined) {
            if (left.length > 0) next.push(item);
            continue;
          }
          const right = Array.isArray(st.value) ? evaluate(st.value as Step[], [item])[0] : st.value;
          if (left.length > 0 && compare(left[0], st.op, right)) next.push(item);
        }
      }
    }
    cur = next;
  }
  return cur;
}

function parseTemplate(template: string): Node[] {
  const root: Node[] = [];
  const stack: Node[][] = [root];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf("{", i);
    if (open < 0) {
      stack[stack.length - 1].push({ t: "text", text: template.slice(i) });
      break;
    }
    if (open > i) stack[stack.length - 1].push({ t: "text", text: template.slice(i, open) });
    let close = open + 1;
    let quote: string | undefined;
    for (; close < template.length; close++) {
      const c = template[close];
      if (quote) {
        if (c === "\\") close++;
        else if (c === quote) quote = undefined;
      } else if (c === '"' || c === "'") quote = c;
      else if (c === "}") break;
    }
    if (close >= template.length) throw new JsonPathError(`unclosed action in template ${JSON.stringify(template)}`);
    const expr = template.slice(open + 1, close).trim();
    i = close + 1;
    const top = stack[stack.length - 1];
    if (expr === "end") {
      if (stack.length === 1) throw new JsonPathError("not in range, nothing to end");
      stack.pop();
    } else if (expr.startsWith("range ")) {
      const node: Node = { t: "range", path: parsePath(expr.slice(6)), body: [] };
      top.push(node);
      stack.push(node.body);
    } else if (/^['"]/.test(expr)) top.push({ t: "literal", text: parseLiteral(expr) });
    else top.push({ t: "expr", path: parsePath(expr) });
  }
  if (stack.length > 1) throw new JsonPathError("unclosed range");
  return root;
}

function show(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === null || v === undefined) return "";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

function run(nodes: Node[], data: unknown): string {
  let out = "";
  for (const n of nodes) {
    if (n.t === "text" || n.t === "literal") out += n.text;
    else if (n.t === "expr") out += evaluate(n.path, [data]).map(show).join(" ");
    else for (const item of evaluate(n.path, [data])) out += run(n.body, item);
  }
  return out;
}

/** Renders a template against an object; a template without braces is taken as one expression. */
export function renderJsonPath(template: string, data: unknown): string {
  const t = template.includes("{") ? template : `{${template}}`;
  return run(parseTemplate(t), data);
}

/** Parses a template early, so a bad one fails before any request. */
export function checkJsonPath(template: string): void {
  parseTemplate(template.includes("{") ? template : `{${template}}`);
}
