/** Parent side of a benchmark child process (a tsx script talking over IPC): one request, one typed reply. */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

export class ChildChannel<Request extends { type: string }, Reply extends { type: string }> {
  private readonly child: ChildProcess;

  /** `script`: a URL (usually `new URL("./x.ts", import.meta.url)`) of a script that answers messages. */
  constructor(script: URL) {
    this.child = fork(fileURLToPath(script), [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  }

  /** Sends `msg` and resolves with the next reply of type `reply`; rejects if the child exits first. */
  ask<T extends Reply["type"]>(msg: Request, reply: T): Promise<Extract<Reply, { type: T }>> {
    return new Promise((resolve, reject) => {
      const onMessage = (m: Reply) => {
        if (m.type !== reply) return;
        cleanup();
        resolve(m as Extract<Reply, { type: T }>);
      };
      const onExit = (code: number | null) => {
        cleanup();
        reject(new Error(`benchmark child exited (${code}) before answering ${msg.type}`));
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

  kill(): void {
    if (this.child.exitCode === null) this.child.kill();
  }
}
