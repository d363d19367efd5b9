/**
 * Passkeys and the second factors end to end in Chromium (issue 30 item 3): a game page on its own origin loads
 * the SDK (bundled from packages/client by esbuild) and calls the listening auth service; the DevTools virtual
 * authenticator (CDP `WebAuthn.addVirtualAuthenticator`, CTAP2, resident keys, user verification) stands in for
 * the player's device. The page registers a passkey through the SDK, signs in with it, finishes an email sign-in
 * with it, signs in with TOTP, and uses a recovery code once (the second use fails).
 *
 * Without /usr/bin/chromium the suite skips, unless REQUIRE_CHROMIUM=1, where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { build } from 'esbuild';
import { Secret, TOTP } from 'otpauth';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chromiumLaunchOptions, chromiumSkip } from '@platform/kit/testing';
import { harness, register, type Harness } from './support/harness.js';

const codeOf = (secret: string, offsetSteps = 0) => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + offsetSteps * 30_000 });

describe('passkeys and second factors in Chromium', { skip: chromiumSkip() }, () => {
  let h: Harness;
  let browser: Browser;
  let game: Server;
  let gameUrl: string;
  let authUrl: string;

  before(async () => {
    // The game's page: one HTML file and the SDK's browser build, on http://localhost (a secure context).
    const sdk = await build({ entryPoints: [path.resolve(import.meta.dirname, '../../client/src/index.ts')], bundle: true, platform: 'browser', format: 'esm', target: 'es2022', write: false, logLevel: 'silent' });
    const html = `<!doctype html><meta charset="utf-8"><title>game</title><script type="module">import * as sdk from '/sdk.js'; window.sdk = sdk; window.ready = true;</script>`;
    game = createServer((req, res) => {
      if (req.url === '/sdk.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(sdk.outputFiles[0].text);
      else res.writeHead(200, { 'content-type': 'text/html' }).end(html);
    });
    await new Promise<void>((r) => game.listen(0, '127.0.0.1', r));
    gameUrl = `http://localhost:${(game.address() as AddressInfo).port}`;
    // The auth service's own port (its device page is an origin of the relying party too): a free one, taken below.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const authPort = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    h = await harness({
      AUTH_WEBAUTHN_RP_ID: 'localhost',
      AUTH_WEBAUTHN_ORIGINS: `${gameUrl},http://localhost:${authPort}`,
      AUTH_DEVICE_POLL_INTERVAL_SECONDS: '1',
      CORS_ALLOWED_ORIGINS: gameUrl,
      AUTH_RATE_GENERAL_PER_IP: '100000',
      AUTH_RATE_LOGIN_PER_IP: '100000',
      AUTH_RATE_LOGIN_PER_IP_EMAIL: '100000',
    });
    await h.app.listen({ port: authPort, host: '127.0.0.1' });
    authUrl = `http://127.0.0.1:${authPort}`;
    browser = await chromium.launch(chromiumLaunchOptions());
  });
  after(async () => {
    await browser?.close();
    await new Promise((r) => game?.close(r));
    await h?.close();
  });

  /** A fresh browser context with the game page open and a virtual platform authenticator attached. */
  async function gamePage(): Promise<Page> {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(gameUrl);
    await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    return page;
  }

  /** Runs `body` in the page with a fresh SDK client (memory storage) as `client`; answers its JSON result or error. */
  const inPage = <T>(page: Page, body: string, arg?: unknown): Promise<T> =>
    page.evaluate(
      async ({ body, authUrl, arg }) => {
        const w = window as unknown as { sdk: { createClient(o: unknown): unknown } };
        const client = w.sdk.createClient({ authUrl, socialUrl: authUrl });
        try {
          return { ok: await new Function('client', 'arg', `return (async () => { ${body} })()`)(client, arg) };
        } catch (e) {
          const err = e as { code?: string; status?: number; details?: unknown; message?: string };
          return { error: { code: err.code, status: err.status, details: err.details, message: err.message } };
        }
      },
      { body, authUrl, arg },
    ) as Promise<T>;

  it('register a passkey through the SDK, sign in with it, finish an email sign-in with it', async () => {
    const u = await register(h.app);
    const page = await gamePage();
    const added = await inPage<{ ok?: { id: string; name: string }; error?: unknown }>(
      page,
      `await client.auth.signInWithEmail({ email: arg.email, password: arg.password });
       const p = await client.auth.addPasskey({ name: 'Chromium' });
       return { ...p, list: await client.auth.passkeys() };`,
      { email: u.email, password: u.password },
    );
    assert.ok(added.ok, JSON.stringify(added.error));
    assert.equal(added.ok.name, 'Chromium');
    // A new client (nothing stored) signs in with the passkey alone: the browser offers the resident credential.
    const signedIn = await inPage<{ ok?: { accountId: string; me: { id: string } }; error?: unknown }>(
      page,
      `const r = await client.auth.signInWithPasskey(); return { accountId: r.accountId, me: await client.auth.account() };`,
    );
    assert.ok(signedIn.ok, JSON.stringify(signedIn.error));
    assert.equal(signedIn.ok.accountId, u.account_id);
    // The password now asks for the second step; the passkey finishes it.
    const mfa = await inPage<{ ok?: { accountId: string }; error?: unknown }>(
      page,
      `try { await client.auth.signInWithEmail({ email: arg.email, password: arg.password }); return { accountId: 'no second step' }; }
       catch (e) { if (e.code !== 'mfa_required') throw e; if (!e.details.factors.includes('passkey')) throw new Error('no passkey factor');
         return await client.auth.completeSignInWithPasskey(e.details.mfa_token); }`,
      { email: u.email, password: u.password },
    );
    assert.ok(mfa.ok, JSON.stringify(mfa.error));
    assert.equal(mfa.ok.accountId, u.account_id);
    const rows = await h.tdb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM passkeys WHERE account_id = $1 AND last_used_at IS NOT NULL', [u.account_id]);
    assert.equal(rows.rows[0].n, 1);
    await page.context().close();
  });

  it('sign in with TOTP, and a recovery code works once (the second use fails)', async () => {
    const u = await register(h.app);
    const page = await gamePage();
    const start = await inPage<{ ok?: { secret: string }; error?: unknown }>(
      page,
      `await client.auth.signInWithEmail({ email: arg.email, password: arg.password }); window.enrolling = client; return await client.auth.startTotp();`,
      u,
    );
    assert.ok(start.ok, JSON.stringify(start.error));
    const confirmed = await page.evaluate(async (code) => {
      const client = (window as unknown as { enrolling: { auth: { confirmTotp(c: string): Promise<{ recovery_codes: string[] }> } } }).enrolling;
      return client.auth.confirmTotp(code);
    }, codeOf(start.ok.secret));
    assert.equal(confirmed.recovery_codes.length, 10);
    const secondStep = `try { await client.auth.signInWithEmail({ email: arg.email, password: arg.password }); return 'no second step'; }
       catch (e) { if (e.code !== 'mfa_required') throw e; return await client.auth.completeSignIn(e.details.mfa_token, arg.proof); }`;
    const viaCode = await inPage<{ ok?: { accountId: string }; error?: unknown }>(page, secondStep, { ...u, proof: { code: codeOf(start.ok.secret, 1) } });
    assert.ok(viaCode.ok, JSON.stringify(viaCode.error));
    assert.equal(viaCode.ok.accountId, u.account_id);
    const recovery = { recovery_code: confirmed.recovery_codes[0] };
    const once = await inPage<{ ok?: { accountId: string }; error?: unknown }>(page, secondStep, { ...u, proof: recovery });
    assert.ok(once.ok, JSON.stringify(once.error));
    assert.equal(once.ok.accountId, u.account_id);
    const twice = await inPage<{ ok?: unknown; error?: { code: string; status: number } }>(page, secondStep, { ...u, proof: recovery });
    assert.equal(twice.error?.code, 'invalid_mfa_code', JSON.stringify(twice));
    assert.equal(twice.error?.status, 401);
    await page.context().close();
  });

  it('the device approval page signs in with a passkey (the button beside the email sign-in) and approves the device', async () => {
    const u = await register(h.app);
    const page = await gamePage();
    const added = await inPage<{ ok?: unknown; error?: unknown }>(page, `await client.auth.signInWithEmail({ email: arg.email, password: arg.password }); return await client.auth.addPasskey();`, u);
    assert.ok(added.ok, JSON.stringify(added.error));
    const auth = await h.app.inject({
      method: 'POST',
      url: '/oauth/device_authorization',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ client_id: 'tv-app', device_name: 'Living room TV' }).toString(),
    });
    assert.equal(auth.statusCode, 200, auth.body);
    const a = auth.json() as { device_code: string; user_code: string };
    // The same tab (its virtual authenticator holds the passkey) opens the auth service's page on localhost.
    await page.goto(`http://localhost:${new URL(authUrl).port}/device?user_code=${encodeURIComponent(a.user_code)}`);
    await page.locator('#passkey-go').waitFor();
    await page.click('#passkey-go');
    await page.locator('#code').waitFor();
    await page.click('#code-go');
    await page.locator('#confirm').waitFor();
    assert.equal(await page.textContent('#d-device'), 'Living room TV');
    await page.click('#approve');
    await page.locator('#result', { hasText: 'Approved' }).waitFor();
    await h.tdb.db.query(`UPDATE device_grants SET last_polled_at = last_polled_at - interval '1 hour' WHERE device_code_hash = $1`, [createHash('sha256').update(a.device_code).digest('hex')]);
    const tokens = await h.app.inject({ method: 'POST', url: '/oauth/token', payload: { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: a.device_code, client_id: 'tv-app' } });
    assert.equal(tokens.statusCode, 200, tokens.body);
    assert.equal(tokens.json().account_id, u.account_id);
    // A password sign-in on the page: the account has a passkey, so the page finishes the second step with it.
    const b = (await h.app.inject({ method: 'POST', url: '/oauth/device_authorization', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'client_id=tv-app' })).json() as { user_code: string };
    await page.goto(`http://localhost:${new URL(authUrl).port}/device?user_code=${encodeURIComponent(b.user_code)}`);
    await page.locator('#signin').waitFor();
    await page.fill('#email', u.email);
    await page.fill('#password', u.password);
    await page.click('#signin-go');
    await page.locator('#code').waitFor();
    await page.click('#code-go');
    await page.locator('#confirm').waitFor();
    await page.context().close();
  });
});
