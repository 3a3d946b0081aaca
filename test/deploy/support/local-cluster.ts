/**
 * `npm run cluster` driven as a child process on a temporary directory, for the
 * cluster-*.test.ts files: run its commands, read its state, and reach the API
 * through its haproxy with the admin certificate the first replica wrote.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { pkiPaths } from "../../../services/apiserver/server/certs.ts";
import { ownedAndAlive, readState, type ClusterState } from "../../../deploy/local/state.ts";
import { HttpsClient } from "../../support/https-client.ts";

const run = promisify(execFile);
const CLUSTER = resolve(__dirname, "../../../deploy/local/cluster.ts");

export interface LocalCluster {
  dir: string;
  /** Runs `cluster <args> --dir <dir>` and returns its output; rejects on a non-zero exit. */
  run(...args: string[]): Promise<string>;
  /** The state file; throws when there is none. */
  state(): ClusterState;
  /** An admin client through the load balancer of the current state. */
  admin(): HttpsClient;
  /** `down` if anything recorded still runs, then removes the directory. */
  remove(): Promise<void>;
}

export function localCluster(): LocalCluster {
  const dir = mkdtempSync(join(tmpdir(), "local-cluster-"));
  const self: LocalCluster = {
    dir,
    async run(...args) {
      const { stdout } = await run(process.execPath, ["--import", "tsx", CLUSTER, ...args, "--dir", dir], { timeout: 150_000 });
      return stdout;
    },
    state() {
      const state = readState(dir);
      if (state === undefined) throw new Error(`no cluster state in ${dir}`);
      return state;
    },
    admin() {
      const pki = pkiPaths(join(dir, "apiserver"));
      return new HttpsClient(String(self.state().outputs.loadBalancer), { ca: readFileSync(pki.caCert, "utf8"), cert: readFileSync(pki.adminCert, "utf8"), key: readFileSync(pki.adminKey, "utf8") });
    },
    async remove() {
      const state = readState(dir);
      if (state !== undefined && state.processes.some((p) => ownedAndAlive(p))) await self.run("down").catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return self;
}
