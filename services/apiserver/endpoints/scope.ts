/** Everything a resource handler needs about one request; built by the dispatcher. */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { Registry, WriteContext } from "../registry/registry.ts";
import type { ResourceInfo } from "../registry/resource.ts";
import type { ResponseMediaType } from "./encode.ts";
import type { ConversionTarget, Encoding } from "./negotiation.ts";
import type { AuditLevel } from "../audit/policy.ts";

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export interface RequestScope {
  request: Request;
  query: URLSearchParams;
  profile: PlatformProfile;
  registry: Registry;
  resource: ResourceInfo;
  namespace?: string;
  name?: string;
  subresource?: string;
  verb: string;
  mediaType: ResponseMediaType;
  encoding: Encoding;
  /** CBOR is served and read (the CBORServingAndStorage gate). */
  cbor: boolean;
  /** Table or PartialObjectMetadata when the client asked for it with `as=`. */
  target?: ConversionTarget;
  pretty: boolean;
  user?: UserInfo;
  /** Authorizes `create` for a write that creates an absent object (PUT, apply); throws 403. */
  authorizeCreate?: () => Promise<void>;
  /** Authorizes another verb on the request's object (the unsafe delete's extra verb); throws 403. */
  authorizeVerb?: (verb: string) => Promise<void>;
  /** `Warning` header values collected while handling the request. */
  warnings: string[];
  /** The request's answer headers recorded so far (a flat name/value list; answer-record.ts): encoded bodies carry them. */
  answerHeaders?: readonly string[];
  /** Audit annotations of the request (admission adds to them); absent when the request is not audited. */
  annotations?: Record<string, string>;
  /** The level of the request's audit event; leveled annotations above it are not recorded. */
  auditLevel?: AuditLevel;
  maxBodyBytes: number;
  /** Interval of BOOKMARK events on watches that allow them. */
  bookmarkIntervalMs: number;
}

/**
 * The write's context for the registry. Every context has the same keys, `authorizeCreate`
 * included (writes that may create pass it), so that callers never add one by spread
 * (see `withOwn` in shared/schema/values.ts).
 */
export function writeContext(s: RequestScope, dryRun: boolean, authorizeCreate?: () => Promise<void>): Omit<WriteContext, "resource" | "name"> {
  return { namespace: s.namespace, subresource: s.subresource, dryRun, user: s.user, warnings: s.warnings, annotations: s.annotations, auditLevel: s.auditLevel, options: operationOptions(s.query, dryRun), authorizeCreate };
}

/** The options of a write as admission reports them (Create/Update/DeleteOptions fields from the query). */
function operationOptions(q: URLSearchParams, dryRun: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (dryRun) out.dryRun = ["All"];
  for (const key of ["fieldManager", "fieldValidation", "propagationPolicy"]) {
    const v = q.get(key);
    if (v) out[key] = v;
  }
  const grace = q.get("gracePeriodSeconds");
  if (grace !== null && /^\d+$/.test(grace)) out.gracePeriodSeconds = Number(grace);
  return out;
}

/** `Warning` header value in the platform's format: `299 - "<text>"`. */
export function warningHeader(text: string): string {
  return `299 - ${JSON.stringify(text)}`;
}
