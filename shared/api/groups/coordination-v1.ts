/**
 * coordination/v1: Lease, the record behind leader election and node
 * heartbeats. Protobuf field numbers are the platform's (coordination/v1
 * generated.proto). Times are MicroTime: RFC 3339 with microseconds
 * (`2024-05-01T10:00:00.123456Z`).
 */
import { int32, named, obj, str, tag, time } from "../../schema/build.ts";
import { fieldErrors } from "../../schema/field-errors.ts";
import type { FieldError, KindDefinition, Schema } from "../../schema/types.ts";
import { ageColumn, getPath } from "../table-cells.ts";
import { objectKind } from "./meta-v1.ts";
import { isObj, type Obj } from "./workload-rules.ts";

const L = (name: string, schema: Schema): Schema => named("coordination", "v1", name, schema);
/** `metav1.MicroTime`: a date-time written with six fractional digits. */
const microTime = (description: string): Schema => time({ description: `${description} (RFC 3339 with microseconds).` });

export const leaseSpec = L(
  "LeaseSpec",
  obj(
    {
      holderIdentity: tag(1, str({ description: "Identity of the current holder." })),
      leaseDurationSeconds: tag(2, int32({ description: "Seconds candidates wait after the last renewTime before they may take the lease." })),
      acquireTime: tag(3, microTime("When the current holder acquired the lease")),
      renewTime: tag(4, microTime("When the current holder last renewed the lease")),
      leaseTransitions: tag(5, int32({ minimum: 0, description: "Number of changes of holder." })),
      strategy: tag(6, str({ description: "Strategy for picking the leader in coordinated leader election (alpha)." })),
      preferredHolder: tag(7, str({ description: "A better holder the current one should hand the lease to; only with strategy." })),
    },
    { description: "Desired state of a Lease." },
  ),
);

export const lease = L("Lease", objectKind({ spec: tag(2, leaseSpec) }));

export function validateLease(o: Obj): FieldError[] {
  const spec = isObj(o.spec) ? o.spec : {};
  const errs: FieldError[] = [];
  if (typeof spec.leaseDurationSeconds === "number" && spec.leaseDurationSeconds <= 0) {
    errs.push(fieldErrors.invalid("spec.leaseDurationSeconds", spec.leaseDurationSeconds, "must be greater than 0"));
  }
  if (spec.preferredHolder != null && spec.preferredHolder !== "" && (spec.strategy == null || spec.strategy === "")) {
    errs.push(fieldErrors.forbidden("spec.preferredHolder", "may only be specified if `strategy` is defined"));
  }
  return errs;
}

export const kinds: KindDefinition[] = [
  {
    group: "coordination",
    version: "v1",
    kind: "Lease",
    plural: "leases",
    singular: "lease",
    namespaced: true,
    schema: lease,
    protobuf: true,
    validateKind: validateLease,
    tableColumns: [
      { name: "Holder", type: "string", description: "Identity of the current holder.", cell: (o) => String(getPath(o, "spec.holderIdentity") ?? "") },
      ageColumn,
    ],
  },
];
