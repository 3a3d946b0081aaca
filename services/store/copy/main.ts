/**
 * `npm run store-copy -- --from <endpoints> --to <endpoints> [--prefix /registry/]
 *                        [--from-cacert F --from-cert F --from-key F] [--to-cacert F --to-cert F --to-key F]`:
 * copies a keyspace key by key between two etcd v3 API servers (our store's members
 * and a real etcd cluster, either way; copy-keyspace.ts says what is kept and what is
 * renumbered). Each side may run mTLS (the default of `npm run cluster` and the
 * chart): its CA, client certificate and key are etcdctl's --cacert/--cert/--key with
 * the side's prefix (endpoint-client.ts). Stop the apiservers writing to the source
 * first: writes after the copy's read revision are not copied. Prints one summary
 * line; exit 1 on failure, 2 on bad flags.
 */
import { FlagError, parseFlagSet, usage, type FlagSpec, type FlagValues } from "../../../shared/cli/flags.ts";
import { copyKeyspace } from "./copy-keyspace.ts";
import { checkSideFlags, sideClient, tlsFlagsOf, type SideClient } from "./endpoint-client.ts";

const FLAGS: Record<string, FlagSpec> = {
  from: { kind: "list", help: "source endpoints (host:port, http:// or https://host:port), comma separated" },
  to: { kind: "list", help: "destination endpoints (host:port, http:// or https://host:port), comma separated" },
  ...tlsFlagsOf("from"),
  ...tlsFlagsOf("to"),
  prefix: { kind: "string", default: "", help: "copy only keys with this prefix (default: every key), e.g. /registry/" },
  "page-size": { kind: "number", default: 1000, help: "keys read per Range" },
  "batch-size": { kind: "number", default: 100, help: "puts per Txn (at most 128)" },
  help: { kind: "boolean", default: false, help: "print the flags" },
};

async function main(argv: readonly string[]): Promise<number> {
  let values: FlagValues;
  try {
    values = parseFlagSet(argv, FLAGS).values;
    if (values.help !== true) {
      checkSideFlags(values, "from");
      checkSideFlags(values, "to");
    }
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    process.stderr.write(`error: ${err.message}\n\n${usage(FLAGS)}\n`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(`Usage: store-copy --from <endpoints> --to <endpoints> [flags]\n\n${usage(FLAGS)}\n`);
    return 0;
  }
  const sides: SideClient[] = [];
  try {
    const from = sideClient(values, "from");
    sides.push(from);
    const to = sideClient(values, "to");
    sides.push(to);
    const r = await copyKeyspace(from.client, to.client, { prefix: String(values.prefix), pageSize: Number(values["page-size"]), batchSize: Number(values["batch-size"]) });
    process.stdout.write(
      `copied ${r.keys} keys (${r.bytes} bytes, ${r.leases} leases, ${r.expired} keys of expired leases skipped) read at revision ${r.sourceRevision} of ${from.client.endpoint}; ` +
        `${to.client.endpoint} is at revision ${r.destinationRevision} (revisions are renumbered: clients relist)\n`,
    );
    return 0;
  } catch (err) {
    process.stderr.write(`store-copy: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    for (const s of sides) s.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`store-copy: ${String(err)}\n`);
    process.exit(1);
  },
);
