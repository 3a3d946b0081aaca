import { describe, expect, it } from "vitest";
import { getProfile } from "../../../../shared/platform/index.ts";
import type { Attributes, PluginContext } from "../interfaces.ts";
import { authorizedForSigner, certificateApprovalPlugin } from "./certificates.ts";
import { csrOrganizations } from "./csr-subject.ts";

const profile = getProfile("plat");

/** A context whose authorizer allows exactly the listed `verb name` pairs on signers. */
function ctxAllowing(allowed: string[], seen: string[] = []): PluginContext {
  return {
    profile,
    config: undefined,
    objects: {} as PluginContext["objects"],
    authorize: async (_user, attrs) => {
      seen.push(`${attrs.verb} ${attrs.group}/${attrs.resource} ${attrs.name ?? ""}`);
      return allowed.includes(`${attrs.verb} ${attrs.name}`);
    },
    log: () => {},
  };
}

function approval(signerName: string): Attributes {
  return {
    operation: "UPDATE",
    kind: { group: profile.group("certificates"), version: "v1", kind: "CertificateSigningRequest" },
    resource: { group: profile.group("certificates"), version: "v1", resource: "certificatesigningrequests" },
    subresource: "approval",
    name: "req",
    namespace: "",
    object: { metadata: { name: "req" }, spec: { signerName } },
    oldObject: undefined,
    options: undefined,
    userInfo: { username: "jane", groups: [] },
    dryRun: false,
    namespaced: false,
    setObject: () => {},
    addWarning: () => {},
    addAnnotation: () => {},
    addAnnotationWithLevel: () => {},
  };
}

describe("certificate plugins", () => {
  it.each<[string[], string, boolean]>([
    [["approve example.com/a"], "example.com/a", true],
    [["approve example.com/*"], "example.com/a", true],
    [["approve other.com/*"], "example.com/a", false],
    [["sign example.com/a"], "example.com/a", false],
    [[], "nodomain", false],
  ])("grants %j approving %s: %s", async (allowed, signer, want) => {
    expect(await authorizedForSigner(ctxAllowing(allowed), approval(signer), "approve", signer)).toBe(want);
  });

  it("refuses approval without the approve verb with the platform's message", async () => {
    const seen: string[] = [];
    const plugin = await certificateApprovalPlugin(ctxAllowing([], seen));
    await expect(Promise.resolve(plugin.validate?.(approval("example.com/a")))).rejects.toMatchObject({
      status: { code: 403, message: `certificatesigningrequests.${profile.group("certificates")} "req" is forbidden: user not permitted to approve requests with signerName "example.com/a"` },
    });
    expect(seen).toEqual([`approve ${profile.group("certificates")}/signers example.com/a`, `approve ${profile.group("certificates")}/signers example.com/*`]);
  });

  it("reads subject organizations and reports what is not a request", () => {
    // CN=jane, O=app-team (the shared certificates sample).
    const pem = [
      "-----BEGIN CERTIFICATE REQUEST-----",
      "MIHdMIGEAgEAMCIxDTALBgNVBAMMBGphbmUxETAPBgNVBAoMCGFwcC10ZWFtMFkw",
      "EwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEuAk7zCgWwJgMHcl5K2edxXXP9vsvEPV1",
      "Iuec9s8i5nezTJhge1xbo++q5J6mlcgStJxLgQvH1vTFm7ephVH8rqAAMAoGCCqG",
      "SM49BAMCA0gAMEUCIQD5gVNEilxfMZIcm8hvPkq+I2tgpJix1KGc02NNqGtowAIg",
      "cm1QFHLbuIZC8ben5sJz+Y1UhnsaN0zYZYZ7oeoG2ks=",
      "-----END CERTIFICATE REQUEST-----",
    ].join("\n");
    expect(csrOrganizations(pem)).toEqual(["app-team"]);
    expect(csrOrganizations("junk")).toEqual({ error: "PEM block type must be CERTIFICATE REQUEST" });
    expect(csrOrganizations("-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----")).toHaveProperty("error");
  });
});
