/**
 * One error type for every service: an HTTP status plus a stable machine code.
 * Route and service code throws AppError; the kit's error handler maps it (and
 * Fastify's own errors) to the service's error body exactly once.
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  /** Extra body fields, already in the service's field-name case. */
  readonly details?: Record<string, unknown>;
  /** Extra response headers, e.g. Retry-After. */
  readonly headers?: Record<string, string>;

  constructor(
    status: number,
    code: string,
    message: string,
    options: { details?: Record<string, unknown>; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.details = options.details;
    this.headers = options.headers;
  }
}

export const badRequest = (code: string, message: string, details?: Record<string, unknown>) =>
  new AppError(400, code, message, { details });
export const unauthorized = (code: string, message: string) => new AppError(401, code, message);
export const forbidden = (code: string, message: string) => new AppError(403, code, message);
export const notFound = (code: string, message: string) => new AppError(404, code, message);
export const conflict = (code: string, message: string, details?: Record<string, unknown>) =>
  new AppError(409, code, message, { details });
export const tooManyRequests = (code: string, message: string, retryAfterMs: number) =>
  new AppError(429, code, message, { headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) } });
export const unavailable = (code: string, message: string) => new AppError(503, code, message);
