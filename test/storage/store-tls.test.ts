/**
 * mTLS on the store (issue 26): a 3-member cluster of real store processes with
 * etcd's TLS flags on the client API and the peer transport (https:// URLs,
 * client-cert-auth on both). Clients without a certificate, or with one from
 * another CA, are refused on the client port and on the peer port; the right
 * certificate works, for our client and for etcdctl 3.4 (--cacert --cert --key);
 * a replaced serving certificate is used for new connections without a restart.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tlsConnect, type ConnectionOptions } from "node:tls";
import { credentials, status, type ChannelCredentials } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnStoreNode, stopChild, waitForMembers, waitForStore } from "../../services/store/server/node-process.ts";
import { FrameKind } from "../../services/store/transport/frames.ts";
import { dialPeer, framed, writeFrame } from "../../services/store/transport/peer-socket.ts";
import { decodeSnapshotAck, encodeSnapshotChunk } from "../../services/store/transport/peer-wire.ts";
import { EtcdClient } from "../../shared/etcd/client.ts";
import { EtcdCallError } from "../../shared/etcd/errors.ts";
import { grpcChannelCredentials } from "../../shared/tls/grpc-credentials.ts";
import { freePort } from "../support/ports.ts";
import { serialOf, writeTlsFiles, type TlsFiles } from "../support/tls-files.ts";

interface Member {
  name: string;
  clientPort: number;
  peerPort: number;
  child: ChildProcess;
}

let dir: string;
let pki: TlsFiles;
let members: Member[] = [];
let clientCreds: ChannelCredentials;
const closers: Array<() => void> = [];

function creds(paths: { caFile?: string; certFile?: string; keyFile?: string }): ChannelCredentials {
  const w = grpcChannelCredentials(paths);
  closers.push(() => w.close());
  return w.credentials;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "store-tls-"));
  pki = await writeTlsFiles(dir);
  clientCreds = creds({ caFile: pki.caFile, certFile: pki.client.certFile, keyFile: pki.client.keyFile });
  const ports = await Promise.all(Array.from({ length: 6 }, () => freePort()));
  const names = ["t1", "t2", "t3"];
  const initialCluster = names.map((n, i) => `${n}=https://127.0.0.1:${ports[2 * i + 1]}`).join(",");
  const tls = { caFile: pki.caFile, certFile: pki.member.certFile, keyFile: pki.member.keyFile };
  members = names.map((name, i) => ({
    name,
    clientPort: ports[2 * i],
    peerPort: ports[2 * i + 1],
    child: spawnStoreNode(
      { name, clientPort: ports[2 * i], peerPort: ports[2 * i + 1], dataDir: join(dir, name), initialCluster, electionTimeoutMs: 500, heartbeatIntervalMs: 50, tls },
      { stdio: ["ignore", "ignore", "inherit"] },
    ),
  }));
  await Promise.all(members.map((m) => waitForStore(`127.0.0.1:${m.clientPort}`, 30_000, m.child, clientCreds)));
  await waitForMembers(`127.0.0.1:${members[0].clientPort}`, 3, 30_000, clientCreds);
}, 60_000);

afterAll(async () => {
  await Promise.all(members.map((m) => stopChild(m.child)));
  for (const close of closers) close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Maintenance Status through a fresh channel: the gRPC status code of the failure, or "ok". */
async function statusWith(port: number, c: ChannelCredentials): Promise<number | "ok"> {
  const client = new EtcdClient(`127.0.0.1:${port}`, {}, c);
  try {
    await client.unary("Status", {}, { deadline: Date.now() + 3000 });
    return "ok";
  } catch (err) {
    if (err instanceof EtcdCallError) return err.code;
    throw err;
  } finally {
    client.close();
  }
}

/**
 * A snapshot chunk of another cluster sent to the peer port, over TLS with
 * `tls` or plaintext: the refusal's ack when the connection got through, or
 * `closed` when the port dropped it first.
 */
async function peerCall(port: number, tls: ConnectionOptions | undefined): Promise<{ ackError?: string; closed?: true }> {
  const sock = dialPeer({ host: "127.0.0.1", port }, tls === undefined ? undefined : { server: () => undefined, client: () => tls, onChange: () => () => undefined });
  try {
    return await new Promise((resolve) => {
      framed(sock, (f) => resolve({ ackError: decodeSnapshotAck(f.payload).error }));
      sock.on("error", () => undefined);
      sock.on("close", () => resolve({ closed: true }));
      const chunk = { cluster_id: "1", from: 1, to: 2, metadata: new Uint8Array(0), offset: 0, data: new Uint8Array(0), last: true };
      writeFrame(sock, FrameKind.SnapshotChunk, (headroom) => encodeSnapshotChunk(chunk, headroom));
    });
  } finally {
    sock.destroy();
  }
}

function etcdctl(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const endpoints = members.map((m) => `https://127.0.0.1:${m.clientPort}`).join(",");
    const child = spawn("etcdctl", [`--endpoints=${endpoints}`, "--dial-timeout=3s", "--command-timeout=5s", ...args], { env: { ...process.env, ETCDCTL_API: "3" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("store client port with --client-cert-auth", () => {
  it("refuses a plaintext client, a TLS client without a certificate and one with a certificate of another CA", async () => {
    const port = members[0].clientPort;
    expect(await statusWith(port, credentials.createInsecure())).toBe(status.UNAVAILABLE);
    expect(await statusWith(port, creds({ caFile: pki.caFile }))).toBe(status.UNAVAILABLE);
    expect(await statusWith(port, creds({ caFile: pki.caFile, certFile: pki.foreignClient.certFile, keyFile: pki.foreignClient.keyFile }))).toBe(status.UNAVAILABLE);
  });

  it("serves a client with the CA's certificate: writes replicate and members advertise https URLs", async () => {
    const writer = new EtcdClient(`127.0.0.1:${members[1].clientPort}`, {}, clientCreds);
    const reader = new EtcdClient(`127.0.0.1:${members[2].clientPort}`, {}, clientCreds);
    try {
      const put = await writer.unary("Put", { key: Buffer.from("/tls/a"), value: Buffer.from("secret") });
      const rev = Number(put.header?.revision);
      let got = "";
      for (let i = 0; i < 50 && got === ""; i++) {
        const r = await reader.unary("Range", { key: Buffer.from("/tls/a"), serializable: true });
        if (Number(r.header?.revision) >= rev) got = Buffer.from(r.kvs[0]?.value ?? []).toString();
        else await new Promise((res) => setTimeout(res, 50));
      }
      expect(got).toBe("secret");
      const list = await reader.unary("MemberList", {});
      expect(list.members.flatMap((m) => [...m.clientURLs, ...m.peerURLs]).every((u) => u.startsWith("https://"))).toBe(true);
    } finally {
      writer.close();
      reader.close();
    }
  });
});

describe("store peer port with --peer-client-cert-auth", () => {
  it("refuses a client without a certificate or with a foreign one, and accepts the member certificate", async () => {
    const port = members[0].peerPort;
    expect(await peerCall(port, undefined)).toEqual({ closed: true });
    expect(await peerCall(port, { ca: pki.caPem })).toEqual({ closed: true });
    expect(await peerCall(port, { ca: pki.caPem, cert: pki.foreignClient.certPem, key: pki.foreignClient.keyPem })).toEqual({ closed: true });
    const through = await peerCall(port, { ca: pki.caPem, cert: pki.member.certPem, key: pki.member.keyPem });
    expect(through.ackError).toMatch(/^cluster id mismatch: got 1, this is /);
  });
});

describe("etcdctl 3.4 against the TLS store", () => {
  it("works with --cacert --cert --key and fails without a client certificate", async () => {
    const tlsArgs = [`--cacert=${pki.caFile}`, `--cert=${pki.client.certFile}`, `--key=${pki.client.keyFile}`];
    const put = await etcdctl([...tlsArgs, "put", "/tls/etcdctl", "v1"]);
    expect(put.code, put.stderr).toBe(0);
    expect(put.stdout.trim()).toBe("OK");
    const get = await etcdctl([...tlsArgs, "get", "/tls/etcdctl", "--print-value-only"]);
    expect(get.stdout.trim()).toBe("v1");
    const status = await etcdctl([...tlsArgs, "endpoint", "status", "-w", "json"]);
    expect(status.code, status.stderr).toBe(0);
    expect((JSON.parse(status.stdout) as unknown[]).length).toBe(3);
    const refused = await etcdctl([`--cacert=${pki.caFile}`, "--dial-timeout=1s", "get", "/tls/etcdctl"]);
    expect(refused.code).not.toBe(0);
  });
});

describe("certificate reload", () => {
  it("a replaced serving certificate is presented to new connections without a restart", async () => {
    const port = members[0].clientPort;
    const presented = (): Promise<string> =>
      new Promise((resolve, reject) => {
        const sock = tlsConnect({ host: "127.0.0.1", port, ca: pki.caPem, cert: pki.client.certPem, key: pki.client.keyPem, ALPNProtocols: ["h2"] }, () => {
          const serial = sock.getPeerCertificate().serialNumber;
          sock.destroy();
          resolve(serial);
        });
        sock.on("error", reject);
      });
    expect(await presented()).toBe(serialOf(pki.member.certPem).toUpperCase());
    const next = await pki.reissueMember();
    let seen = "";
    for (let i = 0; i < 60 && seen !== next.toUpperCase(); i++) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await presented();
    }
    expect(seen).toBe(next.toUpperCase());
    // The cluster still serves (the peer transport reloaded the same files).
    expect(await statusWith(port, clientCreds)).toBe("ok");
  });
});
