/**
 * fast-check generators of client configuration files (the kubeconfig format):
 * plausible documents whose fields are now and then replaced by values of the wrong
 * type, YAML and JSON spellings, alias bombs, tags and garbage text.
 */
import fc from "fast-check";
import { stringify } from "yaml";
import { getProfile } from "../../shared/platform/index.ts";

/** The profile whose exec credential versions the generated files name. */
const EXEC_API = getProfile("kubernetes");

/** A value of the right shape most of the time, any JSON value sometimes. */
function mostly<T>(right: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 4, arbitrary: right }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) });
}

const name = fc.oneof(fc.constantFrom("a", "b", "prod", "__proto__", "constructor", ""), fc.string({ maxLength: 12 }));
const base64 = fc.oneof(fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString("base64")), fc.string({ maxLength: 30 }));
/** Relative paths only (the files are looked for under a temporary directory), and a few odd ones. */
const path = fc.oneof(fc.constantFrom("ca.crt", "missing.pem", ".", "..", "sub/dir/file", "a\u0000b", ""), fc.stringMatching(/^[a-z.]{1,12}$/));
const url = fc.oneof(fc.constantFrom("https://127.0.0.1:6443", "https://h/", "http://insecure", "https://[::1", "ftp://x", "https://user:pw@h:99999", "", "::"), fc.webUrl(), fc.string({ maxLength: 20 }));

const cluster = fc.record(
  {
    server: mostly(url),
    "certificate-authority-data": mostly(base64),
    "certificate-authority": mostly(path),
    "insecure-skip-tls-verify": mostly(fc.boolean()),
    "tls-server-name": mostly(fc.string({ maxLength: 20 })),
    "proxy-url": mostly(url),
    extensions: mostly(fc.array(fc.record({ name: mostly(name), extension: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }), { maxLength: 3 })),
  },
  { requiredKeys: [] },
);

const exec = fc.record(
  {
    command: mostly(fc.constantFrom("plugin", "./bin/plugin", "/no/such", "")),
    apiVersion: mostly(fc.constantFrom(EXEC_API.apiVersion("clientAuthentication", "v1"), EXEC_API.apiVersion("clientAuthentication", "v1beta1"), "x", "")),
    args: mostly(fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 })),
    env: mostly(fc.array(fc.oneof(fc.record({ name: mostly(name), value: mostly(fc.string({ maxLength: 8 })) }, { requiredKeys: [] }), fc.jsonValue({ maxDepth: 1 })), { maxLength: 3 })),
    provideClusterInfo: mostly(fc.boolean()),
    installHint: mostly(fc.string({ maxLength: 10 })),
    interactiveMode: mostly(fc.constantFrom("Never", "IfAvailable", "Always", "Sometimes")),
  },
  { requiredKeys: [] },
);

const user = fc.record(
  {
    token: mostly(fc.string({ maxLength: 30 })),
    tokenFile: mostly(path),
    "client-certificate-data": mostly(base64),
    "client-certificate": mostly(path),
    "client-key-data": mostly(base64),
    "client-key": mostly(path),
    exec: mostly(exec),
    "auth-provider": fc.jsonValue({ maxDepth: 2 }),
  },
  { requiredKeys: [] },
);

const context = fc.record({ cluster: mostly(name), user: mostly(name), namespace: mostly(fc.string({ maxLength: 12 })) }, { requiredKeys: [] });

function named<T>(field: string, body: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return mostly(fc.array(fc.oneof({ weight: 5, arbitrary: fc.record({ name: mostly(name), [field]: mostly(body) }, { requiredKeys: [] }) }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }), { maxLength: 3 }));
}

/** A configuration document as an object. */
export function arbitraryKubeconfigObject(): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    {
      apiVersion: fc.constantFrom("v1", "", "x"),
      kind: fc.constantFrom("Config", "", "Other"),
      "current-context": mostly(name),
      clusters: named("cluster", cluster),
      users: named("user", user),
      contexts: named("context", context),
      preferences: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: [] },
  );
}

/** A coherent document: names from a small set so that contexts find their cluster and user, fields of the right type. */
export function arbitraryCoherentKubeconfig(): fc.Arbitrary<Record<string, unknown>> {
  const ab = fc.constantFrom("a", "b");
  const goodCluster = fc.record(
    {
      server: fc.constantFrom("https://127.0.0.1:6443", "https://example.test/", "https://[::1]:443/base"),
      "certificate-authority-data": base64,
      "insecure-skip-tls-verify": fc.boolean(),
      "tls-server-name": fc.string({ maxLength: 10 }),
      extensions: fc.array(fc.record({ name: fc.string({ maxLength: 5 }), extension: fc.jsonValue({ maxDepth: 1 }) }), { maxLength: 2 }),
    },
    { requiredKeys: ["server"] },
  );
  const goodUser = fc.record({ token: fc.string({ maxLength: 20 }), "client-certificate-data": base64, "client-key-data": base64 }, { requiredKeys: [] });
  return fc.record({
    apiVersion: fc.constant("v1"),
    kind: fc.constant("Config"),
    "current-context": ab,
    clusters: fc.tuple(goodCluster, goodCluster).map(([a, b]) => [{ name: "a", cluster: a }, { name: "b", cluster: b }]),
    users: fc.array(fc.record({ name: ab, user: goodUser }), { maxLength: 2 }),
    contexts: fc
      .array(fc.record({ cluster: ab, user: ab, namespace: fc.string({ maxLength: 8 }) }, { requiredKeys: ["cluster"] }), { minLength: 2, maxLength: 2 })
      .map(([a, b]) => [
        { name: "a", context: a },
        { name: "b", context: b },
      ]),
  });
}

/** Configuration file texts: YAML and JSON documents, alias bombs, tags, several documents and garbage. */
export function arbitraryKubeconfigText(): fc.Arbitrary<string> {
  const laughs = (n: number) => {
    const lines = ["a: &a [x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < n; i++) lines.push(`${"a".repeat(i + 1)}: &${"a".repeat(i + 1)} [${Array(9).fill(`*${"a".repeat(i)}`).join(", ")}]`);
    return `${lines.join("\n")}\ncurrent-context: x\n`;
  };
  return fc.oneof(
    { weight: 4, arbitrary: arbitraryCoherentKubeconfig().map((o) => stringify(o)) },
    { weight: 6, arbitrary: arbitraryKubeconfigObject().map((o) => stringify(o)) },
    { weight: 2, arbitrary: arbitraryKubeconfigObject().map((o) => JSON.stringify(o)) },
    { weight: 1, arbitrary: fc.integer({ min: 2, max: 12 }).map(laughs) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "clusters: !!binary AAAA",
        "current-context: !!int 99999999999999999999999",
        "--- {}\n--- {}",
        "clusters:\n- name: a\n  cluster: &c {server: https://h}\n- name: b\n  cluster: *c\ncontexts: [{name: x, context: {cluster: a}}]\ncurrent-context: x",
        "? [a]\n: b",
        "\t- bad indent",
        "[".repeat(5000),
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  );
}
