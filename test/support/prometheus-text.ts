/**
 * A parser of the Prometheus text exposition format (version 0.0.4) for tests that scrape
 * `/metrics`: families with their HELP, TYPE and samples. Label values are unescaped
 * (`\\`, `\"`, `\n`); a malformed line throws naming the line, so a test fails on output
 * a Prometheus server would refuse.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  help?: string;
  type?: string;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const SUFFIXES = ["_bucket", "_sum", "_count", "_total", "_created"];

function parseValue(text: string, line: string): number {
  if (text === "+Inf") return Number.POSITIVE_INFINITY;
  if (text === "-Inf") return Number.NEGATIVE_INFINITY;
  if (text === "NaN") return Number.NaN;
  const n = Number(text);
  if (text === "" || Number.isNaN(n)) throw new Error(`bad sample value in ${JSON.stringify(line)}`);
  return n;
}

function parseLabels(text: string, line: string): { labels: Record<string, string>; rest: string } {
  const labels: Record<string, string> = {};
  let i = 1; // after "{"
  for (;;) {
    while (text[i] === " " || text[i] === ",") i++;
    if (text[i] === "}") return { labels, rest: text.slice(i + 1) };
    const name = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(text.slice(i));
    if (!name || text[i + name[0].length] !== "=" || text[i + name[0].length + 1] !== '"') throw new Error(`bad label in ${JSON.stringify(line)}`);
    i += name[0].length + 2;
    let value = "";
    for (; i < text.length && text[i] !== '"'; i++) {
      if (text[i] !== "\\") value += text[i];
      else {
        const next = text[++i];
        value += next === "n" ? "\n" : next;
      }
    }
    if (i >= text.length) throw new Error(`unterminated label value in ${JSON.stringify(line)}`);
    labels[name[0]] = value;
    i++;
  }
}

/** The families of an exposition, keyed by family name (a histogram's `_bucket` samples belong to its family). */
export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  const family = (name: string): MetricFamily => {
    let f = families.get(name);
    if (!f) families.set(name, (f = { name, samples: [] }));
    return f;
  };
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) ?(.*)$/.exec(line);
    if (meta) {
      if (meta[1] === "HELP") family(meta[2]).help = meta[3].replace(/\\n/g, "\n").replace(/\\\\/g, "\\");
      else family(meta[2]).type = meta[3];
      continue;
    }
    if (line.startsWith("#")) continue;
    const name = NAME.exec(line);
    if (!name) throw new Error(`bad sample line ${JSON.stringify(line)}`);
    let rest = line.slice(name[0].length);
    let labels: Record<string, string> = {};
    if (rest.startsWith("{")) ({ labels, rest } = parseLabels(rest, line));
    const [value] = rest.trim().split(/\s+/);
    const sample: Sample = { name: name[0], labels, value: parseValue(value ?? "", line) };
    const base = families.has(sample.name) ? sample.name : (SUFFIXES.map((s) => (sample.name.endsWith(s) ? sample.name.slice(0, -s.length) : "")).find((b) => b !== "" && families.has(b)) ?? sample.name);
    family(base).samples.push(sample);
  }
  return families;
}
