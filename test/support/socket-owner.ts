/**
 * Which process holds a loopback TCP socket, read from /proc (no privileges needed for
 * the caller's own processes): the socket's inode comes from /proc/net/tcp{,6} by its
 * local port, and the owner is the process among the candidates with a descriptor
 * linked to `socket:[inode]`. Used by the tests' TCP relays (which client process is
 * behind a connection) and benches (which process listens on a port).
 *
 * Contract: every function answers undefined (or an empty set) when /proc does not tell,
 * never throws for a vanished process or descriptor.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** /proc/net/tcp's state column for a listening socket. */
const LISTEN_STATE = "0A";

/** Inodes of the loopback TCP sockets whose local port is `port` (only listening ones with `listening`). */
export function socketInodes(port: number, listening = false): Set<string> {
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length > 9 && cols[1].endsWith(hexPort) && (!listening || cols[3] === LISTEN_STATE)) inodes.add(cols[9]);
    }
  }
  return inodes;
}

/** The first of `pids` (every process when absent) holding a socket with one of `inodes`. */
export function socketOwner(inodes: ReadonlySet<string>, pids?: readonly number[]): number | undefined {
  if (inodes.size === 0) return undefined;
  const candidates = pids ?? readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map(Number);
  for (const pid of candidates) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m && inodes.has(m[1])) return pid;
      } catch {
        // Closed meanwhile.
      }
    }
  }
  return undefined;
}
