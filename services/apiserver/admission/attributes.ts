/**
 * `Attributes` of one registry admission request (registry.ts `AdmissionRequest`).
 * In the mutating phase (`copyOnRead`) the object is copied the first time a plugin
 * reads it, so plugins may change it in place while the registry's object stays as it
 * was; a request no plugin looks into (a kind none of them acts on) costs no copy.
 * Warnings go to the handler's `Warning` header sink.
 */
import { cloneValue } from "../../../shared/schema/values.ts";
import type { AdmissionRequest } from "../registry/registry.ts";
import type { JsonObject } from "../storage/object.ts";
import type { Attributes, GroupVersionKind, GroupVersionResource, Operation, Reinvocation, UserInfo } from "./interfaces.ts";
import type { AuditLevel } from "../audit/policy.ts";
import { levelAtLeast } from "../audit/policy-evaluator.ts";

/** The identity of writes made by the server itself (no user on the context). */
export const SERVER_USER: UserInfo = { username: "system:apiserver", groups: ["system:authenticated", "system:masters"] };

export function warningHeaderValue(text: string): string {
  return `299 - ${JSON.stringify(text)}`;
}

/** The reinvocation context of one request; its state map is made when a plugin first uses it. */
class ReinvocationContext implements Reinvocation {
  round = 0;
  requested = false;
  private kept: Map<string, unknown> | undefined;

  get state(): Map<string, unknown> {
    return (this.kept ??= new Map());
  }

  requestReinvocation(): void {
    this.requested = true;
  }
}

export class RequestAttributes implements Attributes {
  readonly operation: Operation;
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  readonly subresource: string;
  readonly name: string;
  readonly namespace: string;
  readonly oldObject: JsonObject | undefined;
  readonly options: JsonObject | undefined;
  readonly userInfo: UserInfo;
  readonly dryRun: boolean;
  readonly namespaced: boolean;
  /** The request's object until it is copied (`copyOnRead`), then the copy or what a plugin set. */
  private current: JsonObject | undefined;
  /** Whether `current` is still the request's own object and must be copied before a plugin sees it. */
  private copyPending: boolean;
  readonly reinvocation: Reinvocation & { round: number; requested: boolean };

  constructor(
    readonly request: AdmissionRequest,
    copyOnRead = false,
  ) {
    const r = request.resource;
    this.operation = request.operation;
    this.kind = { group: r.group, version: r.version, kind: r.kind };
    this.resource = { group: r.group, version: r.version, resource: r.plural };
    this.subresource = request.ctx.subresource ?? "";
    this.name = request.name;
    this.namespace = request.namespace;
    this.current = request.object;
    this.copyPending = copyOnRead && request.object !== undefined;
    this.oldObject = request.oldObject;
    this.options = request.ctx.options;
    this.userInfo = request.ctx.user ?? SERVER_USER;
    this.dryRun = request.ctx.dryRun;
    this.namespaced = r.namespaced;
    this.reinvocation = new ReinvocationContext();
  }

  get object(): JsonObject | undefined {
    if (this.copyPending) {
      this.copyPending = false;
      this.current = cloneValue(this.current);
    }
    return this.current;
  }

  /** The object after the phase: the request's own when no plugin read or replaced it. */
  get result(): JsonObject | undefined {
    return this.current;
  }

  setObject(obj: JsonObject): void {
    this.copyPending = false;
    this.current = obj;
  }

  addWarning(message: string): void {
    this.request.ctx.warnings?.push(warningHeaderValue(message));
  }

  addAnnotation(key: string, value: string): void {
    const sink = this.request.ctx.annotations;
    if (sink && !(key in sink)) sink[key] = value;
  }

  addAnnotationWithLevel(key: string, level: AuditLevel, value: () => string): void {
    const eventLevel = this.request.ctx.auditLevel;
    if (this.request.ctx.annotations && eventLevel && levelAtLeast(eventLevel, level)) this.addAnnotation(key, value());
  }
}
