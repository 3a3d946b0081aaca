/**
 * Structured logs (pino) with secrets kept out: Authorization headers, bearer
 * tokens, passwords and private keys are redacted by path, and bearer tokens
 * inside free text are masked before a line is written. Each request gets a
 * child logger carrying its request id.
 */
import { randomUUID } from "node:crypto";
import { pino, type DestinationStream, type Logger, type LoggerOptions } from "pino";

export type { Logger };

export const REDACTED = "[REDACTED]";

/** Paths redacted in every log line (pino `redact` syntax). */
export const REDACT_PATHS: readonly string[] = [
  // request and response headers, as node lowercases them and as callers may spell them
  "req.headers.authorization",
  'req.headers["proxy-authorization"]',
  "req.headers.cookie",
  "headers.authorization",
  "headers.Authorization",
  'headers["proxy-authorization"]',
  "headers.cookie",
  'res.headers["set-cookie"]',
  "authorization",
  "Authorization",
  // tokens and credentials in objects (TokenReview, ExecCredential, client configuration)
  "token",
  "*.token",
  "spec.token",
  "status.token",
  "bearerToken",
  "*.bearerToken",
  "password",
  "*.password",
  // private keys
  "keyPem",
  "*.keyPem",
  "privateKeyPem",
  "*.privateKeyPem",
  "clientKey",
  "*.clientKey",
  "clientKeyData",
  "*.clientKeyData",
  'user["client-key-data"]',
  '*["client-key-data"]',
  "tls.key",
  "data.token",
  'data["tls.key"]',
];

const BEARER = /\b(Bearer)\s+[A-Za-z0-9\-._~+/]+=*/gi;
const PEM_PRIVATE_KEY = /-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/g;

/** Masks bearer tokens and PEM private keys in free text. */
export function scrubSecrets(text: string): string {
  return text.replace(BEARER, `$1 ${REDACTED}`).replace(PEM_PRIVATE_KEY, REDACTED);
}

export interface LoggerFactoryOptions {
  /** pino level (default `info`; `LOG_LEVEL` when set). */
  level?: string;
  /** Component name, bound to every line as `component`. */
  component?: string;
  /** Where lines go (default stdout). */
  destination?: DestinationStream;
  /** Further redaction paths. */
  redactPaths?: readonly string[];
}

/** A root logger with redaction, ISO timestamps and the component bound. */
export function createLogger(opts: LoggerFactoryOptions = {}): Logger {
  const options: LoggerOptions = {
    level: opts.level ?? process.env.LOG_LEVEL ?? "info",
    base: opts.component ? { component: opts.component } : {},
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: [...REDACT_PATHS, ...(opts.redactPaths ?? [])], censor: REDACTED },
    serializers: { err: pino.stdSerializers.err },
    hooks: {
      // Free text (messages and string arguments) is scrubbed; objects go through `redact`.
      logMethod(args, method) {
        const scrubbed = args.map((a: unknown) => (typeof a === "string" ? scrubSecrets(a) : a));
        return method.apply(this, scrubbed as Parameters<typeof method>);
      },
    },
  };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}

export type LogLevel = "debug" | "info" | "warn" | "error";

/**
 * The one structured log sink that components take (instead of a pino `Logger`, so a
 * test can capture lines and a caller can drop or route levels): one line at `level`
 * with a message and optional fields. `fields` never carries a request body or a secret.
 */
export type LogFn = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => void;

/** A `LogFn` writing to a pino logger. */
export function logTo(logger: Logger): LogFn {
  return (level, msg, fields) => logger[level](fields ?? {}, msg);
}

/** A new request id (UUID v4). */
export function newRequestId(): string {
  return randomUUID();
}

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * A child logger for one request: reuses a well-formed incoming id
 * (`X-Request-Id`), else makes one.
 */
export function requestLogger(parent: Logger, incomingId?: string | null): { logger: Logger; requestId: string } {
  const requestId = incomingId && REQUEST_ID_RE.test(incomingId) ? incomingId : newRequestId();
  return { logger: parent.child({ requestId }), requestId };
}
