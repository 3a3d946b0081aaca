/**
 * A benchmark's handle on another Node process started with `--inspect=127.0.0.1:0`:
 * a full garbage collection and the JS heap's used size, a CPU profile of a chosen
 * window (V8's sampling profiler, the `--cpu-prof` format) and an allocation profile of
 * one (V8's sampling heap profiler, counting objects already collected), over the inspector protocol
 * (a WebSocket; the `ws` package the platform's client library brings along).
 */
interface WsLike {
  on(event: "open" | "error" | "message", listener: (arg: unknown) => void): void;
  send(data: string): void;
  close(): void;
}

const INSPECTOR_URL = /Debugger listening on (ws:\/\/\S+)/;

/** The inspector's WebSocket URL from the process's stderr text, if printed yet. */
export function inspectorUrl(stderr: string): string | undefined {
  return INSPECTOR_URL.exec(stderr)?.[1];
}

export class InspectorClient {
  private nextId = 1;
  private readonly pending = new Map<number, (result: Record<string, unknown>) => void>();

  private constructor(private readonly ws: WsLike) {
    ws.on("message", (data) => {
      const msg = JSON.parse(String(data)) as { id?: number; result?: Record<string, unknown> };
      if (msg.id !== undefined) this.pending.get(msg.id)?.(msg.result ?? {});
      if (msg.id !== undefined) this.pending.delete(msg.id);
    });
  }

  static async connect(url: string): Promise<InspectorClient> {
    const mod = (await import("ws" as string)) as { WebSocket: new (url: string) => WsLike };
    const ws = new mod.WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.on("open", () => resolve());
      ws.on("error", (err) => reject(err instanceof Error ? err : new Error(String(err))));
    });
    return new InspectorClient(ws);
  }

  private call(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Used JS heap bytes after a full collection. */
  async heapUsedAfterGc(): Promise<number> {
    await this.call("HeapProfiler.collectGarbage");
    await this.call("HeapProfiler.collectGarbage");
    return Number((await this.call("Runtime.getHeapUsage")).usedSize);
  }

  /** Starts V8's sampling CPU profiler; `stopCpuProfile` ends it and returns the profile. */
  async startCpuProfile(): Promise<void> {
    await this.call("Profiler.enable");
    await this.call("Profiler.start");
  }

  /** The profile since `startCpuProfile`, as `node --cpu-prof` writes it. */
  async stopCpuProfile(): Promise<unknown> {
    return (await this.call("Profiler.stop")).profile;
  }

  /**
   * Starts V8's sampling heap profiler on everything allocated from now on, including
   * objects young and old collections free (so the profile is the allocation rate by
   * allocating function, not what stays alive); one sample per `intervalBytes` on average.
   */
  async startHeapSampling(intervalBytes = 16384): Promise<void> {
    await this.call("HeapProfiler.enable");
    await this.call("HeapProfiler.startSampling", { samplingInterval: intervalBytes, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  }

  /** The allocation profile since `startHeapSampling` (DevTools' `.heapprofile` format). */
  async stopHeapSampling(): Promise<unknown> {
    return (await this.call("HeapProfiler.stopSampling")).profile;
  }

  close(): void {
    this.ws.close();
  }
}
