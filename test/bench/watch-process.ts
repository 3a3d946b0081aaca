/** Parent side of watch-clients.ts. */
import { ChildChannel } from "./child-channel.ts";
import type { ChildMessage, ParentMessage, WatchDelivery, WatchTarget } from "./watch-clients.ts";

export class WatchClientsProcess {
  private readonly channel = new ChildChannel<ParentMessage, ChildMessage>(new URL("./watch-clients.ts", import.meta.url));

  /** Opens `watchers` watches of `path`; resolves with how many were answered 200. */
  async open(target: WatchTarget, path: string, watchers: number): Promise<number> {
    return (await this.channel.ask({ type: "open", target, path, watchers }, "opened")).connected;
  }

  /** Waits until every watcher has `expected` events (or the timeout) and returns the delays. */
  async collect(sentAt: Map<string, number>, expected: number, timeoutMs: number): Promise<WatchDelivery> {
    const { type: _type, ...delivery } = await this.channel.ask({ type: "collect", sentAt: Object.fromEntries(sentAt), expected, timeoutMs }, "result");
    return delivery;
  }

  kill(): void {
    this.channel.kill();
  }
}
