import { describe, expect, it } from "vitest";
import { getProfile } from "../../../../shared/platform/index.ts";
import type { JsonObject } from "../../storage/object.ts";
import { admitPod, mirrorPodViolation, randomSuffix, shouldAutomount } from "./service-account.ts";

const profile = getProfile("kubernetes");
const path = profile.admission.tokenMountPath;

function pod(spec: JsonObject = {}): JsonObject {
  return { metadata: { name: "p" }, spec: { containers: [{ name: "c" }], ...spec } };
}

describe("ServiceAccount core", () => {
  it.each([
    [{}, {}, true],
    [{ automountServiceAccountToken: false }, {}, false],
    [{}, { automountServiceAccountToken: false }, false],
    [{ automountServiceAccountToken: false }, { automountServiceAccountToken: true }, true],
    [{ automountServiceAccountToken: true }, { automountServiceAccountToken: false }, false],
  ])("automount with sa %j and pod %j is %s", (sa, spec, want) => {
    expect(shouldAutomount(sa, pod(spec))).toBe(want);
  });

  it("mounts one projected volume in every init and app container, not ephemeral ones", () => {
    const p = pod({ initContainers: [{ name: "i" }], ephemeralContainers: [{ name: "e" }] });
    admitPod(p, {}, profile, "abcde");
    const spec = p.spec as { volumes: JsonObject[]; containers: JsonObject[]; initContainers: JsonObject[]; ephemeralContainers: JsonObject[] };
    expect(spec.volumes).toEqual([
      {
        name: "kube-api-access-abcde",
        projected: {
          defaultMode: 420,
          sources: [
            { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
            { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
            { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
          ],
        },
      },
    ]);
    const mount = { name: "kube-api-access-abcde", readOnly: true, mountPath: path };
    expect(spec.containers[0].volumeMounts).toEqual([mount]);
    expect(spec.initContainers[0].volumeMounts).toEqual([mount]);
    expect(spec.ephemeralContainers[0].volumeMounts).toBeUndefined();
  });

  it("keeps a container's own mount at the token path and reuses an existing access volume", () => {
    const own = { name: "mine", mountPath: path };
    const p = pod({ containers: [{ name: "a", volumeMounts: [own] }, { name: "b" }], volumes: [{ name: "kube-api-access-zzzzz", emptyDir: {} }] });
    admitPod(p, {}, profile, "abcde");
    const spec = p.spec as { volumes: JsonObject[]; containers: JsonObject[] };
    expect(spec.volumes).toHaveLength(1);
    expect(spec.containers[0].volumeMounts).toEqual([own]);
    expect(spec.containers[1].volumeMounts).toEqual([{ name: "kube-api-access-zzzzz", readOnly: true, mountPath: path }]);
  });

  it("adds no volume when every container mounts the path itself, and none when automount is off", () => {
    const p = pod({ containers: [{ name: "a", volumeMounts: [{ name: "x", mountPath: path }] }] });
    admitPod(p, {}, profile, "abcde");
    expect((p.spec as JsonObject).volumes).toBeUndefined();
    const q = pod();
    admitPod(q, { automountServiceAccountToken: false }, profile, "abcde");
    expect((q.spec as JsonObject).volumes).toBeUndefined();
  });

  it("copies the account's image pull secrets only when the pod has none", () => {
    const p = pod();
    admitPod(p, { imagePullSecrets: [{ name: "r1" }] }, profile, "abcde");
    expect((p.spec as JsonObject).imagePullSecrets).toEqual([{ name: "r1" }]);
    const q = pod({ imagePullSecrets: [{ name: "own" }] });
    admitPod(q, { imagePullSecrets: [{ name: "r1" }] }, profile, "abcde");
    expect((q.spec as JsonObject).imagePullSecrets).toEqual([{ name: "own" }]);
  });

  it.each([
    [{ serviceAccountName: "x" }, "a mirror pod may not reference service accounts"],
    [{ volumes: [{ name: "s", secret: { secretName: "s" } }] }, "a mirror pod may not reference secrets"],
    [{ containers: [{ name: "c", env: [{ name: "E", valueFrom: { secretKeyRef: { name: "s", key: "k" } } }] }] }, "a mirror pod may not reference secrets"],
    [{ volumes: [{ name: "t", projected: { sources: [{ serviceAccountToken: { path: "t" } }] } }] }, "a mirror pod may not use ServiceAccountToken volume projections"],
    [{}, undefined],
  ])("mirror pod %j: %s", (spec, want) => {
    expect(mirrorPodViolation(pod(spec))).toBe(want);
  });

  it("generates suffixes of 5 characters from the name alphabet", () => {
    for (let i = 0; i < 50; i++) expect(randomSuffix()).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });
});
