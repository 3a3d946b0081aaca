/**
 * `metadata.managedFields` on objects: decoding entries into ownership sets
 * keyed by manager identifier, encoding them back (sorted as the platform
 * sorts them), validation with the platform's messages, and the metadata
 * fields that are never tracked.
 *
 * A manager identifier is the JSON of the entry's identity, as the platform
 * builds it: `{"manager":"m","operation":"Update","apiVersion":"apps/v1"}`,
 * with `subresource` when set. Appliers are identified without their API
 * version, so that an applier keeps one entry across versions.
 */
import { fieldErrors } from "../../../shared/schema/field-errors.ts";
import type { FieldError } from "../../../shared/schema/types.ts";
import { FieldSet, fieldElement, fromFieldsV1, toFieldsV1, type FieldsV1Error } from "./fieldpath.ts";
import type { FieldsV1 } from "./fields-v1.ts";
import { compareStrings } from "./path-element.ts";
import type { ManagedSets } from "./updater.ts";

export type Operation = "Apply" | "Update";

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: Operation;
  apiVersion?: string;
  time?: string;
  fieldsType?: "FieldsV1";
  fieldsV1?: FieldsV1;
  subresource?: string;
}

/** Ownership of an object: sets and last-change times by manager identifier. */
export interface Managed {
  fields: ManagedSets;
  times: Map<string, string | undefined>;
}

export function emptyManaged(): Managed {
  return { fields: new Map(), times: new Map() };
}

export interface ManagerIdentity {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  subresource?: string;
}

/** Identifiers made so far, by their parts (a few per kind repeat across writes); cleared when it reaches its bound. */
const madeIdentifiers = new Map<string, string>();
const MADE_IDENTIFIERS_MAX = 1024;

export function managerIdentifier(e: ManagerIdentity): string {
  // The server's parts first, the client-chosen manager name last: no two identities share a key.
  const parts = `${e.operation ?? ""}\u0000${e.apiVersion ?? ""}\u0000${e.subresource ?? ""}\u0000${e.manager ?? ""}`;
  let id = madeIdentifiers.get(parts);
  if (id === undefined) {
    if (madeIdentifiers.size >= MADE_IDENTIFIERS_MAX) madeIdentifiers.clear();
    id = makeIdentifier(e);
    madeIdentifiers.set(parts, id);
  }
  return id;
}

function makeIdentifier(e: ManagerIdentity): string {
  const id: Record<string, string> = {};
  if (e.manager) id.manager = e.manager;
  if (e.operation) id.operation = e.operation;
  if (e.apiVersion && e.operation !== "Apply") id.apiVersion = e.apiVersion;
  if (e.subresource) id.subresource = e.subresource;
  return JSON.stringify(id);
}

/** Identifiers parsed so far (a few per kind repeat across writes); cleared when it reaches its bound. */
const parsedIdentifiers = new Map<string, Readonly<ManagerIdentity>>();
const PARSED_IDENTIFIERS_MAX = 1024;

/** The identity an identifier names (shared between callers: read only). */
export function parseIdentifier(id: string): Readonly<ManagerIdentity> {
  let parsed = parsedIdentifiers.get(id);
  if (parsed === undefined) {
    parsed = Object.freeze(parseIdentifierText(id));
    if (parsedIdentifiers.size >= PARSED_IDENTIFIERS_MAX) parsedIdentifiers.clear();
    parsedIdentifiers.set(id, parsed);
  }
  return parsed;
}

function parseIdentifierText(id: string): ManagerIdentity {
  try {
    const v: unknown = JSON.parse(id);
    if (typeof v === "object" && v !== null) return v as ManagerIdentity;
  } catch {
    // not an identifier: a bare name
  }
  return { manager: id };
}

/** `"kubectl"`, `"ctl" with subresource "status"`, `"ctl" using apps/v1` as the platform prints a manager. */
export function printManager(id: string): string {
  const e = parseIdentifier(id);
  let s = JSON.stringify(e.manager ?? "");
  if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === "Update") s += ` using ${e.apiVersion ?? ""}`;
  return s;
}

/** Decoding the stored or submitted entries failed; the message is the platform's. */
export class ManagedFieldsError extends Error {
  override readonly name = "ManagedFieldsError";
}

/**
 * The object with each managedFields entry of the older form (the trie under `fields`,
 * no fieldsType) rewritten as FieldsV1; the input is not changed. Unchanged objects
 * are returned as they are.
 */
export function withOlderManagedFieldsRead<T>(obj: T): T {
  const meta = typeof obj === "object" && obj !== null ? (obj as { metadata?: unknown }).metadata : undefined;
  const entries = typeof meta === "object" && meta !== null ? (meta as { managedFields?: unknown }).managedFields : undefined;
  if (!Array.isArray(entries) || !entries.some(isOlderEntry)) return obj;
  const rewritten = entries.map((e: unknown) => {
    if (!isOlderEntry(e)) return e;
    const { fields, ...rest } = e;
    return { ...rest, fieldsType: "FieldsV1", fieldsV1: fields };
  });
  return { ...obj, metadata: { ...(meta as object), managedFields: rewritten } };
}

function isOlderEntry(e: unknown): e is Record<string, unknown> & { fields: object } {
  if (typeof e !== "object" || e === null || Array.isArray(e)) return false;
  const r = e as Record<string, unknown>;
  return r.fieldsType === undefined && r.fieldsV1 === undefined && typeof r.fields === "object" && r.fields !== null;
}

/** Entries → ownership. Throws ManagedFieldsError on an invalid entry. */
export function decodeManagedFields(entries: unknown): Managed {
  const out = emptyManaged();
  if (entries === undefined || entries === null) return out;
  if (!Array.isArray(entries)) throw new ManagedFieldsError("managedFields must be a list of entries");
  entries.forEach((raw: unknown, i) => {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new ManagedFieldsError(`managed fields entry ${i} must be an object`);
    const e = raw as Record<string, unknown>;
    if (e.operation !== "Apply" && e.operation !== "Update") throw new ManagedFieldsError("operation must be `Apply` or `Update`");
    if (typeof e.apiVersion !== "string" || e.apiVersion.length < 1) throw new ManagedFieldsError("apiVersion must not be empty");
    // The older form, before fieldsType, kept the same trie under `fields`: read as FieldsV1 (and written back as such).
    const older = isOlderEntry(e);
    if (!older && (e.fieldsType === undefined || e.fieldsType === "")) throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (!older && e.fieldsType !== "FieldsV1") throw new ManagedFieldsError(`invalid fieldsType ${JSON.stringify(String(e.fieldsType))} in managed fields entry ${i}`);
    const trie = older ? e.fields : e.fieldsV1;
    const id = managerIdentifier({ manager: str(e.manager), operation: e.operation, apiVersion: e.apiVersion, subresource: str(e.subresource) });
    let set: FieldSet;
    try {
      set = trie === undefined || trie === null ? new FieldSet() : fromFieldsV1(trie);
    } catch (err) {
      throw new ManagedFieldsError(`error decoding versioned set from ${JSON.stringify(raw)}: error decoding set: ${(err as FieldsV1Error).message}`);
    }
    out.fields.set(id, { set, apiVersion: e.apiVersion, applied: e.operation === "Apply" });
    out.times.set(id, typeof e.time === "string" ? e.time : undefined);
  });
  return out;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** Ownership → entries in the platform's order; undefined when nobody owns anything. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.fields.size === 0) return undefined;
  const entries: ManagedFieldsEntry[] = [];
  for (const [id, vs] of managed.fields) {
    const ident = parseIdentifier(id);
    const e: ManagedFieldsEntry = {};
    if (ident.manager) e.manager = ident.manager;
    e.operation = vs.applied ? "Apply" : ident.operation === "Apply" ? "Apply" : "Update";
    if (vs.apiVersion) e.apiVersion = vs.apiVersion;
    const t = managed.times.get(id);
    if (t) e.time = t;
    e.fieldsType = "FieldsV1";
    e.fieldsV1 = toFieldsV1(vs.set);
    if (ident.subresource) e.subresource = ident.subresource;
    entries.push(e);
  }
  return entries.sort(compareEntries);
}

function seconds(t: string | undefined): number {
  if (!t) return 0;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/** Operation, then time (seconds), then manager, API version and subresource. */
function compareEntries(a: ManagedFieldsEntry, b: ManagedFieldsEntry): number {
  return (
    compareStrings(a.operation ?? "", b.operation ?? "") ||
    seconds(a.time) - seconds(b.time) ||
    compareStrings(a.manager ?? "", b.manager ?? "") ||
    compareStrings(a.apiVersion ?? "", b.apiVersion ?? "") ||
    compareStrings(a.subresource ?? "", b.subresource ?? "")
  );
}

/** A write that sets `managedFields` to exactly `[{}]` asks to clear it (an empty list does not). */
export function isResetManagedFields(v: unknown): boolean {
  if (!Array.isArray(v) || v.length !== 1) return false;
  const e: unknown = v[0];
  return typeof e === "object" && e !== null && !Array.isArray(e) && Object.values(e).every((x) => x === undefined);
}

/** Metadata fields that are never owned: identity, system-set fields and managedFields itself. */
export const STRIPPED_FIELDS: FieldSet = FieldSet.of(
  [fieldElement("apiVersion")],
  [fieldElement("kind")],
  [fieldElement("metadata")],
  ...["name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation", "managedFields", "resourceVersion"].map((f) => [
    fieldElement("metadata"),
    fieldElement(f),
  ]),
);

export const FIELD_MANAGER_MAX_LENGTH = 128;
export const MAX_SUBRESOURCE_NAME_LENGTH = 256;

/** The platform's validation of a `fieldManager` value. */
export function validateFieldManager(manager: string, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (manager.length > FIELD_MANAGER_MAX_LENGTH) errs.push(fieldErrors.tooLongMaxLength(field, FIELD_MANAGER_MAX_LENGTH));
  let pos = 0;
  for (const ch of manager) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) {
      const hex = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
      errs.push(fieldErrors.invalid(field, manager, `invalid character U+${hex} (at position ${pos})`));
    }
    pos += Buffer.byteLength(ch, "utf8");
  }
  return errs;
}

/** Object metadata validation of `managedFields` (for strategies), with the platform's messages. */
export function validateManagedFields(entries: unknown, field = "metadata.managedFields"): FieldError[] {
  if (!Array.isArray(entries)) return [];
  const errs: FieldError[] = [];
  entries.forEach((raw: unknown, i) => {
    const at = `${field}[${i}]`;
    const e = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
    if (e.operation !== "Apply" && e.operation !== "Update") errs.push(fieldErrors.invalid(`${at}.operation`, e.operation ?? "", "must be `Apply` or `Update`"));
    if (typeof e.fieldsType === "string" && e.fieldsType.length > 0 && e.fieldsType !== "FieldsV1") {
      errs.push(fieldErrors.invalid(`${at}.fieldsType`, e.fieldsType, "must be `FieldsV1`"));
    }
    errs.push(...validateFieldManager(typeof e.manager === "string" ? e.manager : "", `${at}.manager`));
    if (typeof e.subresource === "string" && e.subresource.length > MAX_SUBRESOURCE_NAME_LENGTH) {
      errs.push(fieldErrors.tooLongMaxLength(`${at}.subresource`, MAX_SUBRESOURCE_NAME_LENGTH));
    }
  });
  return errs;
}
