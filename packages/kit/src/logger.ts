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

/**
 * A field's or parameter's name as a reader sees it, whatever its spelling: decoded the way URLSearchParams
 * decodes it (what social's gateway reads the token with: `access%5Ftoken`, `%61ccess_token` and `access_token`
 * are one name), lower-cased, without spaces (`+`, `%20`), `_`, `-` and `.`, so `accessToken`, `access-token`,
 * `x-api-secret` and `Client_Key` fall into the class of their last word.
 */
export function fieldClassName(raw: string): string {
  let name = raw;
  try {
    name = new URLSearchParams(`${raw}=`).keys().next().value ?? raw;
  } catch {
    // a malformed escape: the raw spelling
  }
  return name.toLowerCase().replace(/[\s_.-]+/g, '');
}

/** Credentials: any name ending in one of these words (api_key, client_secret, X-Internal-Key, guestSecret…). */
const CREDENTIAL_ENDINGS = ['password', 'passwd', 'secret', 'token', 'apikey', 'clientkey', 'internalkey', 'masterkey', 'privatekey', 'authorization', 'cookie', 'ticket', 'otp'];
/** One-time codes (device user_code, OAuth code, recovery codes); never `code` alone in a log object: that is an error's code. */
const CODE_NAMES = new Set(['usercode', 'devicecode', 'authcode', 'authorizationcode', 'verificationcode', 'recoverycode', 'backupcode', 'totpcode']);
/** Personal data: addresses and search text (a staff search is often an email). */
const PERSONAL_ENDINGS = ['email', 'emailaddress'];

/** Whether a field of this name holds a credential or personal data, whatever its spelling (never logged). */
export function isSensitiveName(raw: string): boolean {
  const n = fieldClassName(raw);
  return CODE_NAMES.has(n) || CREDENTIAL_ENDINGS.some((w) => n.endsWith(w)) || PERSONAL_ENDINGS.some((w) => n.endsWith(w));
}

/** In a URL the query names `code` (OAuth) and `q` (search text) are sensitive too. */
const SENSITIVE_QUERY_NAMES = new Set(['code', 'q', 'query', 'search']);
/** A value that holds an address (an `@`, plain or encoded) is personal data wherever it appears in a URL. */
const ADDRESS_LIKE = /@|%40/i;

/**
 * The URL with every sensitive value replaced by [REDACTED]: parameters whose name is of a sensitive class
 * (credentials, one-time codes, addresses, search text) however it is spelled and however often it repeats, in
 * the query and in a fragment; any value or path segment holding an address. Everything else is left as sent.
 */
export function redactUrl(url: string): string {
  const start = url.search(/[?#]/);
  const path = start < 0 ? url : url.slice(0, start);
  const redactedPath = ADDRESS_LIKE.test(path) ? path.split('/').map((seg) => (ADDRESS_LIKE.test(seg) ? '[REDACTED]' : seg)).join('/') : path;
  if (start < 0) return redactedPath;
  return (
    redactedPath +
    url[start] +
    url
      .slice(start + 1)
      .split(/([&#])/)
      .map((pair) => {
        const eq = pair.indexOf('=');
        if (eq <= 0) return ADDRESS_LIKE.test(pair) ? '[REDACTED]' : pair;
        const name = pair.slice(0, eq);
        const sensitive = isSensitiveName(name) || SENSITIVE_QUERY_NAMES.has(fieldClassName(name)) || ADDRESS_LIKE.test(pair.slice(eq + 1));
        return sensitive ? `${name}=[REDACTED]` : pair;
      })
      .join('')
  );
}

const CENSOR = '[REDACTED]';
const MAX_REDACT_DEPTH = 8;

/**
 * A log object with the value of every field of a sensitive class replaced, at any depth (pino's `redact`
 * names fixed paths only: `clientKey`, `client_key` and `ClientKey` are one field here). Copy on write: an object
 * with nothing to redact is returned as it is.
 */
export function redactFields<T>(value: T, depth = 0): T {
  if (value === null || typeof value !== 'object' || depth > MAX_REDACT_DEPTH) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((v, i) => {
      const r = redactFields(v, depth + 1);
      if (r !== v) (out ??= [...value])[i] = r;
    });
    return (out ?? value) as T;
  }
  // Plain data only: a request, a socket or an error has its own serializer and is not walked.
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const r = v !== undefined && v !== null && isSensitiveName(k) ? CENSOR : redactFields(v, depth + 1);
    if (r !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = r;
  }
  return (out ?? value) as T;
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
    redact: { paths: REDACTED_PATHS, censor: CENSOR },
    // Every field by its class, whatever its spelling and depth (the paths above stay for the fixed headers).
    formatters: { log: (obj) => redactFields(obj) },
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

const LEVEL_NAMES = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
type LevelName = (typeof LEVEL_NAMES)[number];

/**
 * A request's logger, made only when something is logged at an enabled level. Fastify gives every
 * request a child logger; pino builds a child's bindings through the redaction paths, which measured
 * at ~2–3 % of a small route's CPU (bench validate-key) for a logger that, at LOG_LEVEL=warn, never
 * writes for a successful request.
 */
export interface LazyChildLogger extends Record<LevelName, (...args: unknown[]) => void> {}
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
  // One logging method per level (fatal … trace), each a #log of its level.
  static {
    for (const level of LEVEL_NAMES) {
      Object.defineProperty(this.prototype, level, {
        value(this: LazyChildLogger, ...args: unknown[]): void {
          this.#log(level, args);
        },
        writable: true,
        configurable: true,
      });
    }
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
