/**
 * The EncryptionConfiguration of `--encryption-provider-config` (apiserver.config.<profile
 * domain>/v1) checked as the platform checks it, and the transformer of each stored
 * resource. Resources are named `secrets` (core), `deployments.apps`, `*.apps` (a whole
 * group), `*.` (the core group) or `*.*` (everything); the first entry naming a
 * resource decides. Resources no entry names are stored as they are.
 */
import type { GroupKey, PlatformProfile } from "../../../../shared/platform/index.ts";
import { aescbcProvider, aesgcmProvider, secretboxProvider } from "./ciphers.ts";
import { kmsV2Provider, type KmsCallObserver, type KmsV2Config, type KmsV2Provider } from "./kms.ts";
import { encryptionPrefixRoot, identityProvider, PrefixTransformer, type Provider, type TransformObserver, type ValueTransformer } from "./transformer.ts";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

const PROVIDER_KINDS = ["kms", "aesgcm", "aescbc", "secretbox", "identity"] as const;
const KEY_SIZES: Readonly<Record<string, readonly number[]>> = { aescbc: [16, 24, 32], aesgcm: [16, 24, 32], secretbox: [32] };

export interface EncryptionEntry {
  resources: string[];
  providers: Provider[];
}

export interface EncryptionConfig {
  entries: EncryptionEntry[];
  /** The KMS v2 providers (closed with the configuration). */
  kms: KmsV2Provider[];
}

function keysOf(kind: string, v: Obj, path: string, prefixRoot: string): Provider[] {
  const keys = v.keys;
  if (!Array.isArray(keys) || keys.length === 0) throw new Error(`${path}.keys: Required value: keys must contain at least one key`);
  const names = new Set<string>();
  return keys.map((k, i) => {
    const p = `${path}.keys[${i}]`;
    if (!isObj(k) || typeof k.name !== "string" || k.name === "") throw new Error(`${p}.name: Required value: key name is required`);
    if (k.name.includes(":")) throw new Error(`${p}.name: Invalid value: ${JSON.stringify(k.name)}: key name must not contain ":"`);
    if (names.has(k.name)) throw new Error(`${p}.name: Duplicate value: ${JSON.stringify(k.name)}`);
    names.add(k.name);
    if (typeof k.secret !== "string" || k.secret === "") throw new Error(`${p}.secret: Required value: secret is required`);
    const secret = Buffer.from(k.secret, "base64");
    if (secret.toString("base64") !== k.secret.replace(/\s/g, "")) throw new Error(`${p}.secret: Invalid value: "REDACTED": secrets must be base64 encoded`);
    const sizes = KEY_SIZES[kind];
    if (!sizes.includes(secret.length)) throw new Error(`${p}.secret: Invalid value: "REDACTED": secret is not of the expected length, got ${secret.length}, expected one of [${sizes.join(" ")}]`);
    const prefix = `${prefixRoot}${kind}:v1:${k.name}:`;
    const key = new Uint8Array(secret);
    return kind === "aescbc" ? aescbcProvider(prefix, key) : kind === "aesgcm" ? aesgcmProvider(prefix, key) : secretboxProvider(prefix, key);
  });
}

function kmsConfig(v: Obj, path: string): KmsV2Config {
  if (v.apiVersion !== "v2") throw new Error(`${path}.apiVersion: Unsupported value: ${JSON.stringify(v.apiVersion ?? "v1")}: supported values: "v2"`);
  if (typeof v.name !== "string" || v.name === "") throw new Error(`${path}.name: Required value: name is required`);
  if (v.name.includes(":")) throw new Error(`${path}.name: Invalid value: ${JSON.stringify(v.name)}: name must not contain ":"`);
  if (typeof v.endpoint !== "string" || !v.endpoint.startsWith("unix://") || v.endpoint.length <= "unix://".length) {
    throw new Error(`${path}.endpoint: Invalid value: ${JSON.stringify(v.endpoint ?? "")}: unsupported scheme for KMS provider, only unix is supported`);
  }
  const timeout = v.timeout === undefined ? 3000 : parseTimeout(v.timeout, `${path}.timeout`);
  return { name: v.name, socketPath: v.endpoint.slice("unix://".length), timeoutMs: timeout };
}

function parseTimeout(v: unknown, path: string): number {
  const m = typeof v === "string" ? /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(v) : null;
  const ms = m ? Number(m[1]) * (m[2] === "ms" ? 1 : m[2] === "s" ? 1000 : 60_000) : NaN;
  if (!(ms > 0)) throw new Error(`${path}: Invalid value: ${JSON.stringify(v)}: timeout should be a positive value`);
  return ms;
}

function provider(v: unknown, path: string, prefixRoot: string, kms: KmsV2Provider[], kmsNames: Set<string>, observe?: KmsCallObserver): Provider[] {
  if (!isObj(v)) throw new Error(`${path}: must be an object`);
  const given = PROVIDER_KINDS.filter((k) => v[k] !== undefined && v[k] !== null);
  if (given.length !== 1) throw new Error(`${path}: Invalid value: ${JSON.stringify(Object.keys(v))}: ${given.length === 0 ? "provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity" : "more than one provider specified in a single element, should split into different list elements"}`);
  const kind = given[0];
  const body = v[kind];
  if (!isObj(body)) throw new Error(`${path}.${kind}: must be an object`);
  if (kind === "identity") return [identityProvider()];
  if (kind === "kms") {
    const cfg = kmsConfig(body, `${path}.kms`);
    if (kmsNames.has(cfg.name)) throw new Error(`${path}.kms.name: Duplicate value: ${JSON.stringify(cfg.name)}`);
    kmsNames.add(cfg.name);
    const p = kmsV2Provider(`${prefixRoot}kms:v2:${cfg.name}:`, cfg, observe);
    kms.push(p);
    return [p];
  }
  return keysOf(kind, body, `${path}.${kind}`, prefixRoot);
}

/** Checks a decoded EncryptionConfiguration and builds its providers; throws an Error naming the bad field. */
export function encryptionConfigFromObject(doc: unknown, profile: PlatformProfile, observeKms?: KmsCallObserver): EncryptionConfig {
  if (!isObj(doc)) throw new Error("encryption configuration: not an object");
  const apiVersion = profile.apiVersion("apiserverConfig", "v1");
  if (doc.apiVersion !== apiVersion || doc.kind !== "EncryptionConfiguration") {
    throw new Error(`encryption configuration: expected apiVersion ${apiVersion} and kind EncryptionConfiguration, got ${JSON.stringify(doc.apiVersion)} ${JSON.stringify(doc.kind)}`);
  }
  if (!Array.isArray(doc.resources) || doc.resources.length === 0) throw new Error("resources: Required value: resources is a required field");
  const prefixRoot = encryptionPrefixRoot(profile.id);
  const kms: KmsV2Provider[] = [];
  const kmsNames = new Set<string>();
  const entries = doc.resources.map((r, i): EncryptionEntry => {
    const path = `resources[${i}]`;
    if (!isObj(r)) throw new Error(`${path}: must be an object`);
    if (!Array.isArray(r.resources) || r.resources.length === 0 || r.resources.some((x) => typeof x !== "string" || x === "")) throw new Error(`${path}.resources: Required value: resources is a required field`);
    if (!Array.isArray(r.providers) || r.providers.length === 0) throw new Error(`${path}.providers: Required value: providers is a required field`);
    const providers = r.providers.flatMap((p, j) => provider(p, `${path}.providers[${j}]`, prefixRoot, kms, kmsNames, observeKms));
    return { resources: r.resources as string[], providers };
  });
  return { entries, kms };
}

/** Whether a configuration resource name covers `resource` of wire `group` ("" core). */
export function resourceMatches(pattern: string, group: string, resource: string): boolean {
  if (pattern === "*.*") return true;
  if (pattern === "*.") return group === "";
  if (pattern.startsWith("*.")) return pattern.slice(2) === group;
  return pattern === (group ? `${resource}.${group}` : resource);
}

/** The transformer of a storage key; undefined: stored as it is. */
export interface TransformerLookup {
  forKey(key: string): ValueTransformer | undefined;
  close(): void;
}

/** The transformer of each storage key (`/registry/<group key>/<plural>/…`), looked up once per resource. */
export class ResourceTransformers implements TransformerLookup {
  private readonly byPrefix = new Map<string, ValueTransformer | undefined>();

  constructor(
    private readonly config: EncryptionConfig,
    private readonly profile: PlatformProfile,
    private readonly observe?: TransformObserver,
  ) {}

  /** Undefined: the resource is stored as it is. */
  forKey(key: string): ValueTransformer | undefined {
    const parts = key.split("/", 4); // ["", "registry", group key, plural]
    if (parts.length < 4 || parts[1] !== "registry") return undefined;
    const prefix = `/registry/${parts[2]}/${parts[3]}/`;
    if (this.byPrefix.has(prefix)) return this.byPrefix.get(prefix);
    const group = this.profile.group(parts[2] as GroupKey);
    const entry = this.config.entries.find((e) => e.resources.some((p) => resourceMatches(p, group, parts[3])));
    const t = entry ? new PrefixTransformer(entry.providers, this.profile.id, this.observe) : undefined;
    this.byPrefix.set(prefix, t);
    return t;
  }

  /** The KMS v2 providers of the configuration, in order. */
  kmsProviders(): readonly KmsV2Provider[] {
    return this.config.kms;
  }

  close(): void {
    for (const k of this.config.kms) k.close();
  }
}
