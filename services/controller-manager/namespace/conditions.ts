/**
 * The status conditions the namespace controller reports on a Terminating namespace,
 * as the platform's: after every deletion pass the five deletion condition types are
 * set, `True` with the failure's reason and message or `False` with the "ok" reason and
 * message, in this order:
 *   NamespaceDeletionDiscoveryFailure          DiscoveryFailed / ResourcesDiscovered
 *   NamespaceDeletionGroupVersionParsingFailure GroupVersionParsingFailed / ParsedGroupVersions
 *   NamespaceDeletionContentFailure            ContentDeletionFailed / ContentDeleted
 *   NamespaceContentRemaining                  SomeResourcesRemain / ContentRemoved
 *   NamespaceFinalizersRemaining               SomeFinalizersRemain / ContentHasNoFinalizers
 * A condition whose status, reason and message are unchanged keeps its
 * `lastTransitionTime`; conditions of other types are kept as they are. Pure.
 */

export interface NamespaceCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** What one deletion pass found. */
export interface DeletionPass {
  /** Group versions whose discovery failed: `group/version` → error message. */
  discoveryFailures: ReadonlyMap<string, string>;
  /** Errors deleting or listing content, one per resource that failed. */
  contentErrors: readonly string[];
  /** Objects left per resource, keyed `<resource>.<group>` (core group empty: `pods.`). */
  remaining: ReadonlyMap<string, number>;
  /** Objects left per finalizer they still carry. */
  finalizers: ReadonlyMap<string, number>;
}

interface Row {
  type: string;
  failed: { reason: string; message: (p: DeletionPass) => string | undefined };
  ok: { reason: string; message: string };
}

const sorted = (items: Iterable<string>) => [...items].sort();

/** The platform's aggregate error text: one message as is, several in brackets. */
function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`;
}

const ROWS: Row[] = [
  {
    type: "NamespaceDeletionDiscoveryFailure",
    failed: {
      reason: "DiscoveryFailed",
      message: (p) => {
        if (p.discoveryFailures.size === 0) return undefined;
        const parts = sorted(p.discoveryFailures.keys()).map((gv) => `${gv}: ${p.discoveryFailures.get(gv)}`);
        return `Discovery failed for some groups, ${p.discoveryFailures.size} failing: unable to retrieve the complete list of server APIs: ${parts.join(", ")}`;
      },
    },
    ok: { reason: "ResourcesDiscovered", message: "All resources successfully discovered" },
  },
  {
    type: "NamespaceDeletionGroupVersionParsingFailure",
    // Group versions come from discovery documents that are parsed as they are read: nothing can fail to parse later.
    failed: { reason: "GroupVersionParsingFailed", message: () => undefined },
    ok: { reason: "ParsedGroupVersions", message: "All legacy kube types successfully parsed" },
  },
  {
    type: "NamespaceDeletionContentFailure",
    failed: {
      reason: "ContentDeletionFailed",
      message: (p) => (p.contentErrors.length === 0 ? undefined : `Failed to delete all resource types, ${p.contentErrors.length} remaining: ${aggregate(p.contentErrors)}`),
    },
    ok: { reason: "ContentDeleted", message: "All content successfully deleted, may be waiting on finalization" },
  },
  {
    type: "NamespaceContentRemaining",
    failed: {
      reason: "SomeResourcesRemain",
      message: (p) => (p.remaining.size === 0 ? undefined : `Some resources are remaining: ${sorted([...p.remaining].map(([r, n]) => `${r} has ${n} resource instances`)).join(", ")}`),
    },
    ok: { reason: "ContentRemoved", message: "All content successfully removed" },
  },
  {
    type: "NamespaceFinalizersRemaining",
    failed: {
      reason: "SomeFinalizersRemain",
      message: (p) => (p.finalizers.size === 0 ? undefined : `Some content in the namespace has finalizers remaining: ${sorted([...p.finalizers].map(([f, n]) => `${f} in ${n} resource instances`)).join(", ")}`),
    },
    ok: { reason: "ContentHasNoFinalizers", message: "All content-preserving finalizers finished" },
  },
];

export const DELETION_CONDITION_TYPES: readonly string[] = ROWS.map((r) => r.type);

/** The conditions after a pass, given the namespace's current ones and the time now (RFC 3339). */
export function deletionConditions(pass: DeletionPass, previous: readonly NamespaceCondition[], now: string): NamespaceCondition[] {
  const computed: NamespaceCondition[] = ROWS.map((row) => {
    const failure = row.failed.message(pass);
    return failure === undefined
      ? { type: row.type, status: "False", reason: row.ok.reason, message: row.ok.message }
      : { type: row.type, status: "True", reason: row.failed.reason, message: failure };
  });
  const next = computed.map((c) => {
    const old = previous.find((p) => p.type === c.type);
    const same = old && old.status === c.status && old.reason === c.reason && old.message === c.message;
    return { ...c, lastTransitionTime: same && old.lastTransitionTime ? old.lastTransitionTime : now };
  });
  return [...previous.filter((p) => !DELETION_CONDITION_TYPES.includes(p.type)), ...next];
}

/** Whether two condition lists differ (a status write is needed). */
export function conditionsDiffer(a: readonly NamespaceCondition[], b: readonly NamespaceCondition[]): boolean {
  return a.length !== b.length || a.some((c, i) => c.type !== b[i].type || c.status !== b[i].status || c.reason !== b[i].reason || c.message !== b[i].message || c.lastTransitionTime !== b[i].lastTransitionTime);
}
