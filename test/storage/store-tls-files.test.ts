/** TLS material from files (shared/tls/watched-files.ts): start-up checks, and reload that never takes a half-rotated pair. */
import { mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCA, createServingCert, type KeyPairPem } from "../../services/apiserver/server/certs.ts";
import { loadTlsMaterial, WatchedTlsFiles } from "../../shared/tls/watched-files.ts";

let dir: string;
let first: KeyPairPem;
let second: KeyPairPem;
let caPem: string;

async function put(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(`${path}.tmp`, text);
  await rename(`${path}.tmp`, path);
  return path;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "watched-tls-"));
  const ca = await createCA();
  caPem = ca.certPem;
  first = await createServingCert(ca);
  second = await createServingCert(ca);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("loadTlsMaterial", () => {
  it.each([
    ["a missing file", async () => ({ certFile: join(dir, "none.crt"), keyFile: join(dir, "none.key") }), /cannot read certificate file .*none\.crt: ENOENT/],
    ["a key that is not PEM", async () => ({ certFile: await put("a.crt", first.certPem), keyFile: await put("a.key", "junk") }), /a\.key holds no PEM private key/],
    ["a certificate that is not PEM", async () => ({ certFile: await put("b.crt", "junk"), keyFile: await put("b.key", first.keyPem) }), /b\.crt holds no PEM certificate/],
    ["a key of another certificate", async () => ({ certFile: await put("c.crt", first.certPem), keyFile: await put("c.key", second.keyPem) }), /does not match the certificate/],
    ["a certificate without its key", async () => ({ certFile: await put("d.crt", first.certPem) }), /must be given together/],
    ["a CA file that is not PEM", async () => ({ caFile: await put("e.crt", "junk") }), /e\.crt holds no PEM certificate/],
  ])("refuses %s", async (_name, paths, message) => {
    const p = await paths();
    expect(() => loadTlsMaterial(p)).toThrow(message);
  });
});

describe("WatchedTlsFiles", () => {
  it("announces a complete new pair, and keeps the previous one while the pair is inconsistent", async () => {
    const certFile = await put("w.crt", first.certPem);
    const keyFile = await put("w.key", first.keyPem);
    const caFile = await put("w-ca.crt", caPem);
    const errors: string[] = [];
    const w = new WatchedTlsFiles({ certFile, keyFile, caFile }, { pollMs: 60_000, onError: (e) => errors.push(e.message) });
    const identities: string[] = [];
    w.addIdentityCertificateListener((u) => identities.push(u?.certificate.toString() ?? "none"));
    try {
      await new Promise((r) => process.nextTick(r));
      expect(identities).toEqual([first.certPem]);
      w.poll();
      expect(identities).toHaveLength(1);
      // Half-way through a rotation: the new key with the old certificate is refused and the old pair stays.
      await put("w.key", second.keyPem);
      w.poll();
      expect(errors).toEqual([expect.stringMatching(/does not match/)]);
      expect(w.current().cert?.toString()).toBe(first.certPem);
      await put("w.crt", second.certPem);
      w.poll();
      expect(identities).toEqual([first.certPem, second.certPem]);
      expect(w.current().ca?.toString()).toBe(caPem);
    } finally {
      w.close();
    }
  });
});
