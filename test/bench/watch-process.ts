/** Parent side of watch-clients.ts: forks the child and answers its replies as promises. */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ChildMessage, ParentMessage, WatchDelivery, WatchTarget } from "./watch-clients.ts";

export class WatchClientsProcess {
  private readonly child: ChildProcess;

  constructor() {
    this.child = fork(fileURLToPath(new URL("./watch-clients.ts", import.meta.url)), [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  }

  private ask<T extends ChildMessage["type"]>(msg: ParentMessage, reply: T): Promise<Extract<ChildMessage, { type: T }>> {
    return new Promise((resolve, reject) => {
      const onMessage = (m: ChildMessage) => {
        if (m.type !== reply) return;
        cleanup();
        resolve(m as Extract<ChildMessage, { type: T }>);
      };
      const onExit = (code: number | null) => {
        cleanup();
        reject(new Error(`watch clients exited (${code}) before answering ${msg.type}`));
      };
      const cleanup = () => {
        this.child.off("message", onMessage);
        this.child.off("exit", onExit);
      };
      this.child.on("message", onMessage);
      this.child.on("exit", onExit);
      this.child.send(msg);
    });
  }

  /** Opens `watchers` watches of `path`; resolves with how many were answered 200. */
  async open(target: WatchTarget, path: string, watchers: number): Promise<number> {
    return (await this.ask({ type: "open", target, path, watchers }, "opened")).connected;
  }

  /** Waits until every watcher has `expected` events (or the timeout) and returns the delays. */
  async collect(sentAt: Map<string, number>, expected: number, timeoutMs: number): Promise<WatchDelivery> {
    const { type: _type, ...delivery } = await this.ask({ type: "collect", sentAt: Object.fromEntries(sentAt), expected, timeoutMs }, "result");
    return delivery;
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill();
  }
}
