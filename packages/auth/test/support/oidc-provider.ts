/**
 * A real OpenID Connect provider (the `oidc-provider` package) on 127.0.0.1,
 * port 0, inside the test process. It stands in for store_b, idp_a and idp_b.
 *
 * ID tokens come from its real authorization-code flow, driven over HTTP:
 * GET /auth -> interaction (login + consent finished programmatically, as a
 * login page would) -> redirect with a code -> POST /token (client secret,
 * PKCE) -> id_token. They are signed with the keys published at its jwks_uri.
 *
 * Expired tokens: the provider only accepts a positive ID-token lifetime, so
 * `expiresInSeconds <= 0` asks the provider's own IdToken API instead (same
 * keys, same signer, `iat` and `exp` in the past) rather than waiting.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

export interface IssueIdTokenOptions {
  /** The client the token is issued to: its `aud`. Registered on first use. */
  clientId: string;
  /** The account id: the token's `sub`. */
  sub: string;
  /** Copied into the `nonce` claim as given (hash it yourself for Apple-style flows). */
  nonce?: string;
  /** Lifetime; 0 or negative gives an already expired token. Default 600. */
  expiresInSeconds?: number;
  /** Extra claims of the account (see SUPPORTED_EXTRA_CLAIMS). */
  extra?: Record<string, unknown>;
}

export interface TestOidcProvider {
  issuer: string;
  jwksUrl: string;
  issueIdToken(opts: IssueIdTokenOptions): Promise<string>;
  close(): Promise<void>;
}

/** Claims `extra` may set; the provider releases only claims it knows. */
export const SUPPORTED_EXTRA_CLAIMS = ['email', 'email_verified', 'name', 'given_name', 'family_name', 'is_private_email'] as const;

const REDIRECT_URI = 'http://127.0.0.1/callback';
const CLIENT_SECRET = 'test-client-secret-that-is-long-enough-0123456789';

interface Pending {
  sub: string;
  claims: Record<string, unknown>;
  ttl: number;
}

/** Keeps cookies between the requests of one flow (the browser's part). */
class CookieJar {
  private cookies = new Map<string, string>();
  store(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      this.cookies.set(pair.slice(0, i).trim(), pair.slice(i + 1).trim());
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export async function startOidcProvider(options: { alg?: 'RS256' | 'ES256' } = {}): Promise<TestOidcProvider> {
  const alg = options.alg ?? 'RS256';
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: `test-${randomBytes(4).toString('hex')}`, alg, use: 'sig' };

  // The server listens first: the issuer must carry the port.
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // One flow at a time: the interaction and the token endpoint read the current request.
  let pending: Pending | null = null;
  let queue: Promise<unknown> = Promise.resolve();

  const provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    clients: [],
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'given_name', 'family_name'],
      apple: ['is_private_email'],
    },
    scopes: ['openid', 'email', 'profile', 'apple'],
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    enabledJWA: { idTokenSigningAlgValues: [alg] },
    pkce: { required: () => true },
    ttl: {
      IdToken: () => pending?.ttl ?? 600,
      AccessToken: 60,
      AuthorizationCode: 60,
      Interaction: 60,
      Session: 60,
      Grant: 60,
    },
    async findAccount(_ctx, accountId) {
      return {
        accountId,
        claims: async () => ({ sub: accountId, ...(pending?.sub === accountId ? pending.claims : {}) }),
      };
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  });
  provider.on('server_error', (_ctx, err) => console.error('test OIDC provider error:', err));

  const callback = provider.callback();
  handler = (req, res) => {
    if (req.url?.startsWith('/interaction/')) {
      finishInteraction(req, res).catch((err) => {
        res.statusCode = 500;
        res.end(String(err));
      });
    } else {
      callback(req, res);
    }
  };

  // What a login + consent page does once the user is authenticated.
  async function finishInteraction(req: IncomingMessage, res: ServerResponse) {
    const details = await provider.interactionDetails(req, res);
    if (!pending) throw new Error('no issuance in progress');
    const clientId = String(details.params.client_id);
    const grant = new provider.Grant({ accountId: pending.sub, clientId });
    grant.addOIDCScope(String(details.params.scope));
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { login: { accountId: pending.sub }, consent: { grantId } }, { mergeWithLastSubmission: false });
  }

  const registered = new Set<string>();
  async function ensureClient(clientId: string) {
    if (registered.has(clientId)) return;
    // Clients not in the static list are looked up through the adapter (dynamic registration's store).
    const { adapter } = provider.Client as unknown as { adapter: { upsert(id: string, data: object): Promise<void> } };
    await adapter.upsert(clientId, {
      client_id: clientId,
      client_secret: CLIENT_SECRET,
      redirect_uris: [REDIRECT_URI],
      response_types: ['code'],
      grant_types: ['authorization_code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: alg,
    });
    registered.add(clientId);
  }

  function claimsOf(extra: Record<string, unknown> = {}) {
    for (const k of Object.keys(extra)) {
      if (!(SUPPORTED_EXTRA_CLAIMS as readonly string[]).includes(k)) throw new Error(`extra claim ${k} is not released by the test provider`);
    }
    return extra;
  }

  /** The real authorization-code flow, over HTTP. */
  async function codeFlow(opts: IssueIdTokenOptions): Promise<string> {
    const jar = new CookieJar();
    const verifier = randomBytes(32).toString('base64url');
    const auth = new URL('/auth', issuer);
    auth.search = new URLSearchParams({
      client_id: opts.clientId,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      scope: 'openid email profile apple',
      state: randomBytes(8).toString('hex'),
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      ...(opts.nonce !== undefined ? { nonce: opts.nonce } : {}),
    }).toString();

    // Follow the redirects by hand until the provider sends us to the client's redirect_uri.
    let url = auth.href;
    let code: string | null = null;
    for (let hop = 0; hop < 10 && !code; hop++) {
      const res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
      jar.store(res);
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) {
        const page = await res.text();
        const reason = /error_description<\/strong>: ([^<]*)/.exec(page)?.[1] ?? page.slice(0, 200);
        throw new Error(`authorization flow stopped at ${new URL(url).pathname}: ${res.status} ${reason}`);
      }
      await res.arrayBuffer();
      const next = new URL(location, url);
      if (next.href.startsWith(REDIRECT_URI)) {
        if (next.searchParams.get('error')) throw new Error(`authorization failed: ${next.searchParams.get('error_description')}`);
        code = next.searchParams.get('code');
      } else {
        url = next.href;
      }
    }
    if (!code) throw new Error('authorization flow returned no code');

    const res = await fetch(new URL('/token', issuer), {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(opts.clientId)}:${encodeURIComponent(CLIENT_SECRET)}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier }),
    });
    const body = (await res.json()) as { id_token?: string; error_description?: string };
    if (!res.ok || !body.id_token) throw new Error(`token request failed: ${res.status} ${body.error_description ?? ''}`);
    return body.id_token;
  }

  /** The provider's own IdToken API, for lifetimes the flow refuses (already expired). */
  async function expiredToken(opts: IssueIdTokenOptions, expiresInSeconds: number): Promise<string> {
    const client = await provider.Client.find(opts.clientId);
    if (!client) throw new Error(`unknown client ${opts.clientId}`);
    const now = Math.floor(Date.now() / 1000);
    const token = new provider.IdToken({ sub: opts.sub, ...claimsOf(opts.extra) }, { client });
    (token as unknown as { scope: string }).scope = 'openid email profile apple';
    token.set('iat', now + expiresInSeconds - 600);
    if (opts.nonce !== undefined) token.set('nonce', opts.nonce);
    return token.issue({ use: 'idtoken', expiresAt: now + expiresInSeconds });
  }

  return {
    issuer,
    jwksUrl: new URL('/jwks', issuer).href,
    issueIdToken(opts) {
      const run = async () => {
        await ensureClient(opts.clientId);
        const ttl = opts.expiresInSeconds ?? 600;
        if (ttl <= 0) return expiredToken(opts, ttl);
        pending = { sub: opts.sub, claims: claimsOf(opts.extra), ttl };
        try {
          return await codeFlow(opts);
        } finally {
          pending = null;
        }
      };
      const result = queue.then(run, run);
      queue = result.catch(() => {});
      return result;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
