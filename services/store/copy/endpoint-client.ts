/**
 * One side of a copy (`--from` or `--to`) as an etcd v3 client: the first endpoint of
 * the list, TLS from that side's `--<side>-cacert/--<side>-cert/--<side>-key` files
 * (etcdctl's --cacert/--cert/--key, prefixed by the side). With no file the channel is
 * plaintext; an https:// endpoint without a CA file verifies the server against the
 * system's roots. A certificate without its key (or the reverse) is a FlagError.
 */
import { FlagError, type FlagSpec, type FlagValues } from "../../../shared/cli/flags.ts";
import { EtcdClient } from "../../../shared/etcd/client.ts";
import { grpcChannelCredentials } from "../../../shared/tls/grpc-credentials.ts";
import { tlsFilesFrom } from "../../../shared/tls/file-flags.ts";

export type CopySide = "from" | "to";

const SIDE_NAMES: Record<CopySide, string> = { from: "source", to: "destination" };

/** The TLS file flags of one side. */
export function tlsFlagsOf(side: CopySide): Record<string, FlagSpec> {
  const whose = SIDE_NAMES[side];
  return {
    [`${side}-cacert`]: { kind: "string", default: "", help: `verify the ${whose}'s certificates with this CA bundle` },
    [`${side}-cert`]: { kind: "string", default: "", help: `client certificate presented to the ${whose} (with --${side}-key)` },
    [`${side}-key`]: { kind: "string", default: "", help: `key of --${side}-cert` },
  };
}

export interface SideClient {
  client: EtcdClient;
  /** Whether the channel is TLS. */
  secure: boolean;
  close(): void;
}

/** Checks the side's flags (endpoints given, certificate and key together) without connecting. */
export function checkSideFlags(values: FlagValues, side: CopySide): void {
  if (((values[side] as string[] | undefined) ?? []).length === 0) throw new FlagError(`--${side} is required`);
  tlsFilesFrom(values, { ca: `${side}-cacert`, cert: `${side}-cert`, key: `${side}-key` });
}

/** A client of the side's first endpoint; one member per side: the copy reads at one revision and writes in order, so it needs no failover. */
export function sideClient(values: FlagValues, side: CopySide): SideClient {
  const files = tlsFilesFrom(values, { ca: `${side}-cacert`, cert: `${side}-cert`, key: `${side}-key` });
  const endpoint = (values[side] as string[])[0];
  const tls = grpcChannelCredentials(files);
  const client = new EtcdClient(endpoint, {}, tls.credentials);
  return {
    client,
    secure: tls.secure,
    close() {
      client.close();
      tls.close();
    },
  };
}
