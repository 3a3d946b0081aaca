/**
 * The embedded default's controllers under the controller manager's lease
 * (services/controller-manager/embedded-lease.ts) over HTTPS: of two candidates sharing
 * one API server only one starts its controllers; closing the leader releases the Lease
 * (empty holder) and the other starts within one retry period (2 s, the platform's
 * default) instead of the lease duration (15 s); the Lease names each holder.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import { runControllersUnderLease } from "../../services/controller-manager/embedded-lease.ts";
import { defaultLeaseName } from "../../services/controller-manager/options.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { eventually, writeAdminKubeconfig } from "./support.ts";

let api: TestApiserver;
let client: HttpsObjectClient;

beforeAll(async () => {
  api = await startTestApiserver();
  client = HttpsObjectClient.fromKubeconfig(await writeAdminKubeconfig(api, "embedded.kubeconfig"));
});
afterAll(async () => {
  client?.close();
  await api?.close();
});

async function holder(): Promise<string | undefined> {
  const path = `/apis/${api.profile.group("coordination")}/v1/namespaces/${api.profile.systemNamespace}/leases/${defaultLeaseName(api.profile)}`;
  const r = await api.admin.get(path);
  return r.status === 200 ? (r.json<{ spec: { holderIdentity?: string } }>().spec.holderIdentity ?? "") : undefined;
}

describe("embedded controllers under the leader lease", () => {
  it("one candidate runs the controllers; a released lease passes to the other within the retry period", async () => {
    const started: string[] = [];
    const stopped: string[] = [];
    const candidate = () =>
      runControllersUnderLease({
        client,
        profile: api.profile,
        start: (identity) => {
          started.push(identity);
          return () => stopped.push(identity);
        },
      });
    const first = candidate();
    expect(await eventually(async () => started.length === 1)).toBe(true);
    const second = candidate();
    expect(started).toEqual([first.identity]);
    expect(await holder()).toBe(first.identity);

    // The standby polls every retry period and never starts while the leader renews.
    await new Promise((r) => setTimeout(r, 2500));
    expect(started).toEqual([first.identity]);

    const closedAt = Date.now();
    await first.close();
    expect(stopped).toEqual([first.identity]);
    expect(await eventually(async () => started.length === 2, 10_000, 20)).toBe(true);
    const takeoverMs = Date.now() - closedAt;
    console.log(`embedded lease: takeover ${takeoverMs} ms after release`);
    expect(started[1]).toBe(second.identity);
    expect(takeoverMs).toBeLessThan(2000 + 1000);
    expect(await holder()).toBe(second.identity);

    await second.close();
    expect(await holder()).toBe("");
  }, 30_000);
});
