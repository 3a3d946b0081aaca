import { describe, expect, it } from "vitest";
import { parseFlags } from "../../../shared/cli/flags.ts";
import { nodeConfig, STORE_FLAGS } from "./node-flags.ts";

const config = (...args: string[]) => nodeConfig(parseFlags(args, STORE_FLAGS));
const CLIENT_TLS = ["--cert-file=/t/s.crt", "--key-file=/t/s.key"];
const PEER_TLS = ["--peer-cert-file=/t/p.crt", "--peer-key-file=/t/p.key"];
const HTTPS = ["--listen-client-urls=https://127.0.0.1:2379", "--listen-peer-urls=https://127.0.0.1:2380"];

describe("store node TLS flags", () => {
  it("are off by default: plaintext on both sides, no Redis TLS files", () => {
    expect(config().tls).toEqual({
      client: { certFile: undefined, keyFile: undefined, trustedCaFile: undefined, clientCertAuth: false },
      peer: { certFile: undefined, keyFile: undefined, trustedCaFile: undefined, clientCertAuth: false },
      redis: { caFile: undefined, certFile: undefined, keyFile: undefined },
    });
  });

  it("read both sides and the Redis files with etcd's names", () => {
    const tls = config(...HTTPS, ...CLIENT_TLS, "--trusted-ca-file=/t/ca.crt", "--client-cert-auth", ...PEER_TLS, "--peer-trusted-ca-file=/t/pca.crt", "--peer-client-cert-auth", "--redis-ca-file=/t/r.crt").tls;
    expect(tls.client).toEqual({ certFile: "/t/s.crt", keyFile: "/t/s.key", trustedCaFile: "/t/ca.crt", clientCertAuth: true });
    expect(tls.peer).toEqual({ certFile: "/t/p.crt", keyFile: "/t/p.key", trustedCaFile: "/t/pca.crt", clientCertAuth: true });
    expect(tls.redis.caFile).toBe("/t/r.crt");
  });

  it.each([
    [["--cert-file=/t/s.crt"], "--cert-file and --key-file must be given together"],
    [["--peer-key-file=/t/p.key"], "--peer-cert-file and --peer-key-file must be given together"],
    [[...CLIENT_TLS, "--client-cert-auth"], "--client-cert-auth needs --trusted-ca-file"],
    [[...PEER_TLS, "--peer-client-cert-auth"], "--peer-client-cert-auth needs --peer-trusted-ca-file"],
    [["--trusted-ca-file=/t/ca.crt"], "--trusted-ca-file needs --cert-file and --key-file"],
    [["--listen-client-urls=https://127.0.0.1:2379"], "--listen-client-urls: TLS key/cert (--cert-file, --key-file) must be provided for https://127.0.0.1:2379"],
    [["--listen-peer-urls=https://127.0.0.1:2380"], "--listen-peer-urls: TLS key/cert (--peer-cert-file, --peer-key-file) must be provided for https://127.0.0.1:2380"],
    [["--redis-cert-file=/t/c.crt"], "--redis-cert-file and --redis-key-file must be given together"],
    [["--listen-client-urls=ftp://127.0.0.1:2379"], '--listen-client-urls: "ftp://127.0.0.1:2379" must be http(s)://host:port'],
  ])("refuses %j: %s", (args, message) => {
    expect(() => config(...args)).toThrow(message);
  });

  it("accepts certificates on an http URL (served plaintext with a warning, as etcd does)", () => {
    expect(config(...CLIENT_TLS).tls.client.certFile).toBe("/t/s.crt");
  });
});
