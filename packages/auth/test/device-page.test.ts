/**
 * The device approval page in a real browser (Debian's Chromium through playwright-core) against the listening
 * auth service (HTTPS, its self-signed certificate trusted by its key only): the player signs in on the page,
 * the user code comes prefilled from verification_uri_complete, the page shows which device asks, the player
 * approves and the device's next poll gets tokens; the page keeps nothing in browser storage and signs its own
 * session out. A companion app hands its token over in the fragment (gone from the address bar at once). A page
 * of another origin can neither call the decision endpoint (CORS) nor frame the page (frame-ancestors). An account
 * with an authenticator app is asked for its code (or a recovery code, once) after the password.
 *
 * Without /usr/bin/chromium the suite skips, unless REQUIRE_CHROMIUM=1 (.ci/run), where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { Secret, TOTP } from 'otpauth';
import { loadOrCreateTls } from '@platform/kit';
import { chromiumLaunchOptions, chromiumSkip } from '@platform/kit/testing';
import { harness, register, guest, bearer, type Harness } from './support/harness.js';
import { DEVICE_CODE_GRANT } from '../src/services/device-grants.js';

const sha256Hex = (s: string) => createHash('sha256').update(s).digest('hex');

describe('the device approval page in Chromium', { skip: chromiumSkip() }, () => {
  let h: Harness;
  let browser: Browser;
  let url: string;
  let foreign: Server;
  let foreignUrl: string;

  /** A fresh browser context (no cookies, no storage) and a page in it. */
  const newPage = async () => {
    const context = await browser.newContext();
    return { context, page: await context.newPage() };
  };

  before(async () => {
    const tls = await loadOrCreateTls({ dir: path.join(mkdtempSync(path.join(tmpdir(), 'auth-page-')), 'tls') });
    h = await harness({ AUTH_DEVICE_POLL_INTERVAL_SECONDS: '1' }, { tls });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    url = `https://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
    // Another origin: a page that tries to use the approval endpoints or frame the page.
    foreign = createServer((req, res) => {
      const code = new URL(req.url ?? '/', 'http://x').searchParams.get('code') ?? '';
      const body = req.url?.startsWith('/csrf')
        ? `<!doctype html><form id="f" method="POST" action="${url}/device/decision" enctype="text/plain"><input name='{"user_code":"${code}","approve":true,"x":"' value='"}'></form><script>document.getElementById('f').submit()</script>`
        : `<!doctype html><iframe id="f" src="${url}/device"></iframe>`;
      res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    });
    await new Promise<void>((r) => foreign.listen(0, '127.0.0.1', r));
    foreignUrl = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}`;
    browser = await chromium.launch(chromiumLaunchOptions([tls.cert]));
  });
  after(async () => {
    await browser?.close();
    await new Promise((r) => foreign?.close(r));
    await h?.close();
  });

  const authorize = async (fields: Record<string, string>) => {
    const r = await h.app.inject({ method: 'POST', url: '/oauth/device_authorization', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });
    assert.equal(r.statusCode, 200, r.body);
    return r.json() as { device_code: string; user_code: string; verification_uri_complete: string };
  };
  const poll = async (deviceCode: string) => {
    await h.tdb.db.query(`UPDATE device_grants SET last_polled_at = last_polled_at - interval '1 hour' WHERE device_code_hash = $1`, [sha256Hex(deviceCode)]);
    return h.app.inject({ method: 'POST', url: '/oauth/token', payload: { grant_type: DEVICE_CODE_GRANT, device_code: deviceCode, client_id: 'tv-app' } });
  };

  it('sign in, confirm the prefilled code, see the device, approve: the device gets tokens; nothing is stored in the browser', async () => {
    const player = await register(h.app);
    const a = await authorize({ client_id: 'tv-app', device_name: 'Bedroom TV', platform: 'console' });
    const { context, page } = await newPage();
    // verification_uri_complete names the configured issuer; the page is the same on this listener.
    await page.goto(`${url}/device${new URL(a.verification_uri_complete).search}`);
    await page.locator('#signin').waitFor();
    assert.equal(await page.inputValue('#user-code'), a.user_code);
    await page.fill('#email', player.email);
    await page.fill('#password', 'wrong password entirely');
    await page.click('#signin-go');
    await page.locator('#status', { hasText: 'Wrong email or password' }).waitFor();
    await page.fill('#password', player.password);
    await page.click('#signin-go');
    await page.locator('#code').waitFor();
    await page.click('#code-go');
    await page.locator('#confirm').waitFor();
    assert.equal(await page.textContent('#d-code'), a.user_code);
    assert.equal(await page.textContent('#d-device'), 'Bedroom TV');
    assert.equal(await page.textContent('#d-platform'), 'console');
    assert.equal(await page.textContent('#d-client'), 'tv-app (unverified name)');
    assert.equal(await page.textContent('#d-ip'), '127.0.0.0/24');
    await page.click('#approve');
    await page.locator('#result', { hasText: 'Approved' }).waitFor();

    const tokens = await poll(a.device_code);
    assert.equal(tokens.statusCode, 200, tokens.body);
    assert.equal(tokens.json().account_id, player.account_id);
    // Nothing in cookies or storage; the page's own session was signed out after the decision (only the
    // registration's and the TV's sessions are live).
    assert.deepEqual(await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie]), [0, 0, '']);
    assert.deepEqual((await context.cookies()).length, 0);
    await page.locator('#status', { hasText: 'Done' }).waitFor();
    const sessions = (await h.app.inject({ method: 'GET', url: '/account/sessions', headers: bearer(player.access_token) })).json().sessions;
    assert.deepEqual(sessions.map((s: { auth_method: string }) => s.auth_method).sort(), ['device_code', 'email']);
    await context.close();
  });

  it('an account with an authenticator app: the page asks for its code after the password, and takes a recovery code once', async () => {
    const player = await register(h.app);
    const start = await h.app.inject({ method: 'POST', url: '/account/mfa/totp', headers: bearer(player.access_token) });
    assert.equal(start.statusCode, 201, start.body);
    const secret = start.json().secret as string;
    const codeOf = (offset: number) => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + offset * 30_000 });
    // The previous step's code confirms, so the current one is left for the page.
    const confirmed = await h.app.inject({ method: 'POST', url: '/account/mfa/totp/confirm', headers: bearer(player.access_token), payload: { code: codeOf(-1) } });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    const recovery = confirmed.json().recovery_codes[0] as string;
    /** The page for a new device request, signed in with the password up to the second step. */
    const toSecondStep = async () => {
      const a = await authorize({ client_id: 'tv-app', device_name: 'Den TV' });
      const { context, page } = await newPage();
      await page.goto(`${url}/device?user_code=${a.user_code}`);
      await page.fill('#email', player.email);
      await page.fill('#password', player.password);
      await page.click('#signin-go');
      await page.locator('#mfa-code').waitFor();
      assert.equal(await page.isVisible('#mfa-passkey'), false);
      return { a, context, page };
    };
    const approve = async (page: Awaited<ReturnType<typeof newPage>>['page'], deviceCode: string) => {
      await page.locator('#code').waitFor();
      await page.click('#code-go');
      await page.locator('#confirm').waitFor();
      await page.click('#approve');
      await page.locator('#result', { hasText: 'Approved' }).waitFor();
      const tokens = await poll(deviceCode);
      assert.equal(tokens.statusCode, 200, tokens.body);
      assert.equal(tokens.json().account_id, player.account_id);
    };

    // A wrong code is explained and the page asks again; the right one signs in; the device is approved.
    const first = await toSecondStep();
    await first.page.fill('#mfa-code', String((Number(codeOf(0)) + 500_000) % 1_000_000).padStart(6, '0'));
    await first.page.click('#mfa-go');
    await first.page.locator('#status', { hasText: 'wrong or used already' }).waitFor();
    assert.equal(await first.page.isVisible('#mfa'), true);
    await first.page.fill('#mfa-code', codeOf(0));
    await first.page.click('#mfa-go');
    await approve(first.page, first.a.device_code);
    await first.context.close();

    // A recovery code works once.
    const second = await toSecondStep();
    await second.page.fill('#mfa-code', recovery);
    await second.page.click('#mfa-go');
    await approve(second.page, second.a.device_code);
    await second.context.close();
    const third = await toSecondStep();
    await third.page.fill('#mfa-code', recovery);
    await third.page.click('#mfa-go');
    await third.page.locator('#status', { hasText: 'wrong or used already' }).waitFor();
    // Start over: back to the password form.
    await third.page.click('#mfa-back');
    await third.page.locator('#signin').waitFor();
    await third.context.close();
  });

  it('a companion app passes its token in the fragment: it leaves the address bar, and the player can deny', async () => {
    const player = await guest(h.app);
    const a = await authorize({ client_id: 'tv-app' });
    const { context, page } = await newPage();
    await page.goto(`${url}/device?user_code=${a.user_code}#access_token=${player.access_token}`);
    await page.locator('#code').waitFor();
    assert.equal(page.url(), `${url}/device?user_code=${a.user_code}`);
    await page.click('#code-go');
    await page.locator('#confirm').waitFor();
    await page.click('#deny');
    await page.locator('#result', { hasText: 'Denied' }).waitFor();
    const r = await poll(a.device_code);
    assert.equal(r.json().error, 'access_denied');
    // The companion app's session is its own: the page does not sign it out.
    assert.equal((await h.app.inject({ method: 'GET', url: '/account', headers: bearer(player.access_token) })).statusCode, 200);
    await context.close();
  });

  it('a mistyped code is explained; the page asks again', async () => {
    const player = await guest(h.app);
    const { context, page } = await newPage();
    await page.goto(`${url}/device#access_token=${player.access_token}`);
    await page.fill('#user-code', 'BCDF-BCDF');
    await page.click('#code-go');
    await page.locator('#status', { hasText: 'That code is not valid' }).waitFor();
    assert.equal(await page.isVisible('#code'), true);
    await context.close();
  });

  it('another origin cannot make the signed-in browser approve (no ambient credential), nor frame the page', async () => {
    const player = await register(h.app);
    const a = await authorize({ client_id: 'tv-app' });
    const context = await browser.newContext();
    // The player is signed in on the approval page in this browser (the token lives in that tab's memory) …
    const approval = await context.newPage();
    await approval.goto(`${url}/device`);
    await approval.fill('#email', player.email);
    await approval.fill('#password', player.password);
    await approval.click('#signin-go');
    await approval.locator('#code').waitFor();
    // … and another site posts the decision in the same browser: a form (the classic CSRF) and a fetch with
    // credentials. Neither carries the token: nothing is approved.
    const page = await context.newPage();
    await page.goto(`${foreignUrl}/csrf?code=${a.user_code}`);
    await page.waitForURL(`${url}/device/decision`);
    const answer = JSON.parse((await page.textContent('body')) ?? '{}');
    assert.ok(['validation_failed', 'unsupported_media_type', 'unauthenticated'].includes(answer.code), JSON.stringify(answer));
    await page.goto(foreignUrl);
    const status = await page.evaluate(
      async ([u, code]) => {
        try {
          const r = await fetch(`${u}/device/decision`, { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user_code: code, approve: true }) });
          return r.status;
        } catch {
          return 0; // refused by CORS (a deployment that does not list this origin)
        }
      },
      [url, a.user_code],
    );
    assert.ok(status === 401 || status === 0, String(status));
    assert.equal((await poll(a.device_code)).json().error, 'authorization_pending');
    // The framed page never loads (frame-ancestors 'none'): the frame holds no approval form.
    const frame = page.frames().find((f) => f !== page.mainFrame());
    assert.ok(frame);
    assert.equal(await frame.locator('#signin').count(), 0);
    await context.close();
  });
});
