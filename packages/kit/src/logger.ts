/**
 * pino options shared by every service: JSON lines, a request id on every
 * request line, and secrets redacted wherever they could appear.
 */
import { levels, type Bindings, type ChildLoggerOptions, type Logger, type LoggerOptions } from 'pino';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-api-secret"]',
  'req.headers["x-platform-api-secret"]',
  'req.headers["x-platform-game-secret"]',
  'req.headers["x-internal-key"]',
  'req.headers["sec-websocket-protocol"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.Password',
  '*.secret',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  '*.ApiSecret',
];

/** Query parameters that may carry a credential (WebSocket token, for instance), compared as queryParamName gives them. */
const SECRET_QUERY_NAMES = new Set(['token', 'accesstoken', 'refreshtoken', 'secret', 'apikey', 'apisecret', 'password']);

/**
 * A parameter's name as a reader of the query sees it: decoded the way URLSearchParams decodes it (what
 * social's gateway reads the token with: `access%5Ftoken`, `%61ccess_token` and `access_token` are one
 * name), lower-cased, and without spaces (`+`, `%20`), `_` and `-`, so every spelling of a secret's name
 * (`accessToken`, `access-token`, `access+token`) is caught.
 */
function queryParamName(raw: string): string {
  const name = new URLSearchParams(`${raw}=`).keys().next().value ?? raw;
  return name.toLowerCase().replace(/[\s_-]+/g, '');
}

/**
 * The URL with the value of every secret parameter replaced by [REDACTED], whatever the spelling of its
 * name and however often it repeats, in the query and in a fragment. Everything else is left as sent.
 */
export function redactUrl(url: string): string {
  const start = url.search(/[?#]/);
  if (start < 0) return url;
  return (
    url.slice(0, start + 1) +
    url
      .slice(start + 1)
      .split(/([&#])/)
      .map((pair) => {
        const eq = pair.indexOf('=');
        return eq > 0 && SECRET_QUERY_NAMES.has(queryParamName(pair.slice(0, eq))) ? `${pair.slice(0, eq)}=[REDACTED]` : pair;
      })
      .join('')
  );
}

/** The fields of an error that are logged: its kind and where it came from, never the data it was handling. */
const LOGGED_ERROR_FIELDS = ['code', 'status', 'statusCode', 'constraint', 'table', 'column', 'routine', 'errno', 'syscall'] as const;

/**
 * pino `err` serializer: type, message, stack, a few identifying fields and the cause chain. Every other
 * property an error carries is left out: a database driver's error holds the statement's parameters
 * (PGlite's `params`) and the failing row (`detail`), which held password hashes and API keys.
 */
export function serializeError(err: unknown, depth = 0): unknown {
  if (err === null || typeof err !== 'object') return err;
  const e = err as Record<string, unknown> & { message?: unknown; stack?: unknown; cause?: unknown };
  const out: Record<string, unknown> = {
    type: (err as object).constructor?.name ?? 'Error',
    message: typeof e.message === 'string' ? e.message : String(e.message ?? ''),
  };
  if (typeof e.stack === 'string') out.stack = e.stack;
  for (const k of LOGGED_ERROR_FIELDS) {
    if (typeof e[k] === 'string' || typeof e[k] === 'number') out[k] = e[k];
  }
  if (e.cause !== undefined && depth < 5) out.cause = serializeError(e.cause, depth + 1);
  return out;
}

export function loggerOptions(service: string, level: string): LoggerOptions {
  return {
    level,
    base: { service },
    redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
    serializers: {
      err: serializeError,
      error: serializeError,
      req(req: { method: string; url: string; id?: string; ip?: string; socket?: { remoteAddress?: string } }) {
        return { method: req.method, url: redactUrl(req.url), remoteAddress: req.ip ?? req.socket?.remoteAddress };
      },
      res(res: { statusCode: number }) {
        return { statusCode: res.statusCode };
      },
    },
  };
}

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * A request's logger, made only when something is logged at an enabled level. Fastify gives every
 * request a child logger; pino builds a child's bindings through the redaction paths, which measured
 * at ~2–3 % of a small route's CPU (bench validate-key) for a logger that, at LOG_LEVEL=warn, never
 * writes for a successful request.
 */
export class LazyChildLogger {
  #real: Logger | undefined;
  readonly #threshold: number;
  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {
    this.#threshold = options.level ? (levels.values[options.level] ?? Infinity) : parent.levelVal;
  }
  get real(): Logger {
    return (this.#real ??= this.parent.child(this.bindings, this.options));
  }
  get level(): string {
    return this.#real?.level ?? this.options.level ?? this.parent.level;
  }
  set level(level: string) {
    this.real.level = level;
  }
  isLevelEnabled(level: string): boolean {
    return levels.values[level] >= this.#threshold;
  }
  #log(level: LevelName, args: unknown[]): void {
    if (levels.values[level] < this.#threshold && !this.#real) return;
    (this.real[level] as (...a: unknown[]) => void)(...args);
  }
  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#log('error', args);
  }
  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }
  info(...args: unknown[]): void {
    this.#log('info', args);
  }
  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }
  silent(): void {}
  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.real.child(bindings, options);
  }
}

/** Fastify `childLoggerFactory`: a LazyChildLogger per request. */
export function lazyChildLoggerFactory(logger: unknown, bindings: Bindings, options: ChildLoggerOptions): LazyChildLogger {
  return new LazyChildLogger(logger as Logger, bindings, options);
}
