// Module resolution hooks of a k6 adapter VU (registered by vu-worker.ts): the k6
// modules a scenario imports resolve to the adapter's stand-ins beside this file.
import { URL } from "node:url";

const STAND_INS = {
  k6: "./k6.ts",
  "k6/http": "./k6-http.ts",
  "k6/metrics": "./k6-metrics.ts",
};

export async function resolve(specifier, context, next) {
  const target = STAND_INS[specifier];
  // Passed on (not short-circuited) so that the TypeScript loader resolves the stand-in too.
  if (target !== undefined) return next(new URL(target, import.meta.url).href, context);
  return next(specifier, context);
}
