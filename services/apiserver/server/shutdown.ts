/**
 * Graceful termination of a replica, in the platform's order and with its answers:
 *
 *   1. ShutdownInitiated: readyz fails (`[-]shutdown failed`), everything else is served
 *      as before, for `--shutdown-delay-duration`, so load balancers take the replica out.
 *   2. AfterShutdownDelayDuration. Then, with `--shutdown-send-retry-after`, the listener
 *      stays open while in-flight requests drain and every new request (on new or open
 *      connections) gets 429 `The apiserver is shutting down, please try again later.`
 *      with `Retry-After: 5` and `Connection: close`; the listener closes once drained.
 *      Without it, the listener closes at once (new connections are refused) and a
 *      request still arriving on an open connection gets 503 `apiserver is shutting down`
 *      with `Retry-After: 1`. Health probes and /metrics are never refused.
 *   3. NotAcceptingNewRequest / HTTPServerStoppedListening; InFlightRequestsDrained once
 *      no request handler runs (bounded by the request timeout).
 *   4. Watches: with `--shutdown-watch-termination-grace-period` > 0 they are ended
 *      cleanly (the stream ends, clients resume elsewhere from their last
 *      resourceVersion) and their connections are given that long to finish; otherwise
 *      they are cut with the connections. Once new requests are refused (step 2),
 *      every response carries `Connection: close`, and idle connections are closed as
 *      they become idle (never while a response's tail is being flushed); what is still
 *      open after the grace period (at least 100 ms) is cut.
 *
 * A request is in flight while its handler runs: a watch's or a log's handler returns
 * as soon as its stream starts, so long-running requests never hold the drain up.
 * Each step is logged as `[graceful-termination] shutdown event` with the signal's name.
 */
import type { Server } from "node:http";

export type LifecycleSignal = "ShutdownInitiated" | "AfterShutdownDelayDuration" | "NotAcceptingNewRequest" | "HTTPServerStoppedListening" | "InFlightRequestsDrained";

export interface GracefulShutdownOptions {
  /** `--shutdown-delay-duration` (ms). */
  delayMs: number;
  /** `--shutdown-send-retry-after`. */
  sendRetryAfter: boolean;
  /** `--shutdown-watch-termination-grace-period` (ms; 0: watches are not waited for). */
  watchGraceMs: number;
  /** The longest in-flight drain (the request timeout). */
  drainTimeoutMs: number;
  log?: (msg: string, fields: Record<string, unknown>) => void;
}

/** What the sequence drives: the health registry, the watch cache and the HTTP server. */
export interface ShutdownTargets {
  /** Makes readyz fail. */
  beginShutdown(): void;
  /** Ends every watch stream cleanly. */
  endWatches(): void;
  server: Pick<Server, "close" | "closeIdleConnections" | "closeAllConnections" | "keepAliveTimeout">;
}

/**
 * From now on connections close once idle: those idle now at once, one whose response is
 * still running 1 ms after that response is flushed (Node arms its keep-alive timer then).
 * Node's closeIdleConnections also destroys a connection whose response has ended but is
 * not yet flushed, cutting the response's tail; so it is called here once, before watches
 * are ended, and never swept while responses end (a watch ended cleanly reached its client cut).
 */
function closeConnectionsOnceIdle(server: ShutdownTargets["server"]): void {
  server.keepAliveTimeout = 1;
  server.closeIdleConnections();
}

/** Paths never refused while shutting down (health probes and metrics scraping), as on the platform. */
const EXEMPT_PATH_PREFIXES = ["/readyz", "/livez", "/healthz", "/metrics"];

export const RETRY_AFTER_MESSAGE = "The apiserver is shutting down, please try again later.";
export const UNAVAILABLE_WHILE_DRAINING_MESSAGE = "apiserver is shutting down";

type Refusal = "none" | "retry-after" | "unavailable";

/** Node's outgoing response, when the adapter passes it (header set before the Response is written). */
interface NodeBindings {
  outgoing?: { setHeader(name: string, value: string): unknown; headersSent: boolean };
}

type Fetch<E> = (request: Request, env: E) => Response | Promise<Response>;

function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const end = url.slice(start).search(/[?#]/);
  return end < 0 ? url.slice(start) : url.slice(start, start + end);
}

export function isExemptFromShutdownRefusal(url: string): boolean {
  const path = pathOf(url);
  return EXEMPT_PATH_PREFIXES.some((p) => path.startsWith(p));
}

function retryAfterResponse(): Response {
  return new Response(`${RETRY_AFTER_MESSAGE}\n`, {
    status: 429,
    headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff", "Retry-After": "5", Connection: "close" },
  });
}

function unavailableResponse(): Response {
  const status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: UNAVAILABLE_WHILE_DRAINING_MESSAGE, reason: "ServiceUnavailable", code: 503 };
  return new Response(`${JSON.stringify(status)}\n`, {
    status: 503,
    headers: { "Content-Type": "application/json", "X-Content-Type-Options": "nosniff", "Retry-After": "1", Connection: "close" },
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class GracefulShutdown {
  private inFlight = 0;
  private refusal: Refusal = "none";
  /** From NotAcceptingNewRequest on, every response asks the client to close its connection. */
  private closingConnections = false;
  private drained: (() => void) | undefined;
  private started: Promise<void> | undefined;
  readonly signals: LifecycleSignal[] = [];

  constructor(private readonly opts: GracefulShutdownOptions) {}

  /** Requests whose handler is running. */
  get inFlightRequests(): number {
    return this.inFlight;
  }

  /** Wraps the application's fetch: counts handlers in flight, refuses new requests when the sequence says so. */
  wrap<E>(fetch: Fetch<E>): Fetch<E> {
    return (request, env) => {
      if (this.refusal !== "none" && !isExemptFromShutdownRefusal(request.url)) {
        return this.refusal === "retry-after" ? retryAfterResponse() : unavailableResponse();
      }
      this.inFlight++;
      let result: Response | Promise<Response>;
      try {
        result = fetch(request, env);
      } catch (err) {
        this.finished();
        throw err;
      }
      if (!(result instanceof Promise)) {
        this.finished();
        return this.closing(result, env);
      }
      return result.then(
        (response) => {
          this.finished();
          return this.closing(response, env);
        },
        (err: unknown) => {
          this.finished();
          throw err;
        },
      );
    };
  }

  private closing<E>(response: Response, env: E): Response {
    if (!this.closingConnections) return response;
    const outgoing = (env as NodeBindings | undefined)?.outgoing;
    if (outgoing && !outgoing.headersSent) {
      outgoing.setHeader("Connection", "close");
      return response;
    }
    const headers = new Headers(response.headers);
    headers.set("Connection", "close");
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }

  private finished(): void {
    this.inFlight--;
    if (this.inFlight === 0 && this.drained) {
      const done = this.drained;
      this.drained = undefined;
      done();
    }
  }

  private signal(name: LifecycleSignal, fields: Record<string, unknown> = {}): void {
    this.signals.push(name);
    this.opts.log?.("[graceful-termination] shutdown event", { name, ...fields });
  }

  /** Resolves once no handler runs, or after `timeoutMs` (resolves false then). */
  private waitForDrain(timeoutMs: number): Promise<boolean> {
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.drained = undefined;
        resolve(false);
      }, timeoutMs);
      this.drained = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  }

  /** Runs the sequence once (later calls return the same promise); resolves when every connection is closed. */
  run(targets: ShutdownTargets): Promise<void> {
    this.started ??= this.sequence(targets);
    return this.started;
  }

  private async sequence({ beginShutdown, endWatches, server }: ShutdownTargets): Promise<void> {
    const { delayMs, sendRetryAfter, watchGraceMs, drainTimeoutMs } = this.opts;
    beginShutdown();
    this.signal("ShutdownInitiated");
    if (delayMs > 0) await sleep(delayMs);
    this.signal("AfterShutdownDelayDuration", { delay: delayMs });

    let closed: Promise<void>;
    const stopListening = (): Promise<void> => new Promise<void>((resolve) => server.close(() => resolve()));
    if (sendRetryAfter) {
      // The listener stays open while in-flight requests drain; new requests are refused with 429.
      this.refusal = "retry-after";
      this.closingConnections = true;
      closeConnectionsOnceIdle(server);
      const drained = await this.waitForDrain(drainTimeoutMs);
      this.signal("InFlightRequestsDrained", { drained });
      closed = stopListening();
      this.signal("NotAcceptingNewRequest");
      this.signal("HTTPServerStoppedListening");
    } else {
      closed = stopListening();
      this.signal("NotAcceptingNewRequest");
      this.signal("HTTPServerStoppedListening");
      this.refusal = "unavailable";
      this.closingConnections = true;
      closeConnectionsOnceIdle(server);
      const drained = await this.waitForDrain(drainTimeoutMs);
      this.signal("InFlightRequestsDrained", { drained });
    }

    if (watchGraceMs > 0) endWatches();
    // Connections close as their last response ends (Connection: close) or once idle (above).
    const allClosed = await Promise.race([closed.then(() => true), sleep(Math.max(watchGraceMs, 100)).then(() => false)]);
    if (!allClosed) server.closeAllConnections();
    await closed;
  }
}
