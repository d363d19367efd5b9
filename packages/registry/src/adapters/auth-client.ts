/**
 * The registry's calls to the auth service (HTTPS, its certificate trusted through REGISTRY_AUTH_CA_FILE): one
 * request path for register-user (services/registrations.ts) and the super-admin's staff roles (services/staff-roles.ts). An unreachable
 * auth, or a 5xx from it, is 503 `auth_unavailable`.
 */
import { requestJson, type JsonResponse } from '@platform/kit';
import { fail } from '../errors.js';

export interface AuthClientOptions {
  url: string;
  ca?: string;
  internalKey?: string;
  timeoutMs?: number;
}

export const authUnavailable = (why: string) => fail('auth_unavailable', `The authentication service is unavailable (${why})`);

/** A call to auth with these headers; answers below 500 are the caller's to read. */
export async function callAuth(auth: AuthClientOptions, method: string, path: string, opts: { body?: unknown; headers: Record<string, string> }): Promise<JsonResponse> {
  let res: JsonResponse;
  try {
    res = await requestJson(method, auth.url.replace(/\/+$/, '') + path, { body: opts.body, headers: opts.headers, ca: auth.ca, timeoutMs: auth.timeoutMs ?? 10_000 });
  } catch (err) {
    throw authUnavailable((err as Error).message);
  }
  if (res.status >= 500 || res.status === 0) throw authUnavailable(`HTTP ${res.status}`);
  return res;
}
