// The dependency rules of the architecture as one lint rule. Every relative import
// (import, export … from, import()) is resolved against the importing file and
// checked, in repository-relative paths:
//   service   services/<a>/ never imports services/<b>/ (only services/embedded/ composes them);
//   shared    shared/ never imports services/;
//   test      shipped code never imports test code: test/, a testing/ or testdata/ folder, the Raft
//             simulator (services/store/raft/sim/), *.test.ts, benchmarks (bench.ts, bench/);
//   layer     the apiserver's lower layers (storage, registry, endpoints) never import
//             the server layer (services/apiserver/server/).
// Options: `{ root, allow: [{ from, to, why }] }`: `from` and `to` are repository-relative
// path prefixes of an importer and an imported file that may break a rule (temporary
// exceptions, each with its reason).
import { dirname, relative, resolve } from "node:path";

const slash = (p) => p.split("\\").join("/");

/** True for files that only tests, benchmarks and simulations use. */
export function isTestCode(path) {
  return (
    path.startsWith("test/") ||
    /(^|\/)(testing|testdata)\//.test(path) ||
    path.startsWith("services/store/raft/sim/") ||
    /\.test\.[cm]?[jt]s$/.test(path) ||
    /(^|\/)bench(\.[cm]?[jt]s|\/)/.test(path)
  );
}

function serviceOf(path) {
  const m = /^services\/([^/]+)\//.exec(path);
  return m ? m[1] : undefined;
}

const LOWER_APISERVER_LAYERS = ["storage", "registry", "endpoints"];

/** The rule a resolved import breaks, or undefined. */
export function violation(from, to) {
  const a = serviceOf(from);
  const b = serviceOf(to);
  if (a !== undefined && b !== undefined && a !== b && a !== "embedded") {
    return { id: "service", data: { a, b } };
  }
  if (from.startsWith("shared/") && b !== undefined) return { id: "shared", data: { b } };
  if (!isTestCode(from) && isTestCode(to)) return { id: "test", data: { to } };
  if (a === "apiserver" && b === "apiserver" && to.startsWith("services/apiserver/server/")) {
    const layer = from.split("/")[2];
    if (LOWER_APISERVER_LAYERS.includes(layer)) return { id: "layer", data: { layer } };
  }
  return undefined;
}

/** @type {import("eslint").Rule.RuleModule} */
export const importBoundaries = {
  meta: {
    type: "problem",
    docs: { description: "enforce the dependency rules between services, shared code, test code and apiserver layers" },
    schema: [
      {
        type: "object",
        properties: {
          root: { type: "string" },
          allow: {
            type: "array",
            items: {
              type: "object",
              properties: { from: { type: "string" }, to: { type: "string" }, why: { type: "string" } },
              required: ["from", "to", "why"],
              additionalProperties: false,
            },
          },
        },
        additionalProperties: false,
      },
    ],
    messages: {
      service: "services/{{a}} must not import services/{{b}}: services talk over their APIs (only services/embedded/ composes them)",
      shared: "shared/ must not import services/{{b}}",
      test: "shipped code must not import test code ({{to}})",
      layer: "apiserver {{layer}}/ must not import the server layer (services/apiserver/server/)",
    },
  },
  create(context) {
    const options = context.options[0] ?? {};
    const root = options.root ?? context.cwd;
    const allow = options.allow ?? [];
    const file = slash(relative(root, context.filename));
    if (file.startsWith("..")) return {};
    const check = (source) => {
      if (!source || typeof source.value !== "string" || !source.value.startsWith(".")) return;
      const target = slash(relative(root, resolve(dirname(context.filename), source.value)));
      const broken = violation(file, target);
      if (!broken) return;
      if (allow.some((x) => file.startsWith(x.from) && target.startsWith(x.to))) return;
      context.report({ node: source, messageId: broken.id, data: broken.data });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};

export default { rules: { "import-boundaries": importBoundaries } };
