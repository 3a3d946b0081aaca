/** Stoppable waits for the agent's loops: `sleep` resolves early (false) once `stop()` was called. */
export class Sleeper {
  private stopped = false;
  private readonly wakers = new Set<() => void>();

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Waits `ms`; true when the time passed, false when stopped. */
  sleep(ms: number): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve(false);
      };
      const timer = setTimeout(() => {
        this.wakers.delete(wake);
        resolve(true);
      }, ms);
      this.wakers.add(wake);
    });
  }

  stop(): void {
    this.stopped = true;
    for (const w of [...this.wakers]) w();
  }
}
