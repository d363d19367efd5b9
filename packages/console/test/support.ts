/**
 * The console's browser tests and its screenshot script share this: the platform in this process
 * (@platform/e2e's startPlatform, real HTTPS for auth and social) with the registry on a port chosen first, so
 * auth and social can allow its origin (CORS_ALLOWED_ORIGINS, needed on PostgreSQL where nothing is allowed by
 * default); Debian's Chromium through playwright-core, trusting exactly the two services' keys; SDK clients in
 * Node for the players; and a recorder of everything secret the browser received, to prove none of it is kept.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { chromiumLaunchOptions } from '@platform/kit/testing';
import { freePort, platformTransport, startPlatform, type Platform } from '@platform/e2e';
import { createClient, memoryStorage, type FetchLike, type PlatformClient } from '@platform/client';

export const PASSWORD = 'a perfectly long console passphrase';
export const unique = (tag: string) => `${tag}-${randomUUID().slice(0, 8)}`;


export interface ConsoleRig {
  platform: Platform;
  browser: Browser;
  /** The console's URL (the registry's origin + /console/). */
  url: string;
  /** A player SDK client in Node, trusting the services' certificates; `clientKey`: the game it plays. */
  player(opts?: { clientKey?: string }): PlatformClient;
  close(): Promise<void>;
}

export async function startRig(): Promise<ConsoleRig> {
  const registryPort = await freePort();
  const origin = `http://127.0.0.1:${registryPort}`;
  // The console on http://localhost too: a WebAuthn relying party is a domain name, never an IP address (passkeys).
  const named = `http://localhost:${registryPort}`;
  const relaxed = { AUTH_RATE_LOGIN_PER_IP: '10000', AUTH_RATE_LOGIN_PER_IP_EMAIL: '10000', AUTH_RATE_GENERAL_PER_IP: '100000' };
  const webauthn = { AUTH_WEBAUTHN_RP_ID: 'localhost', AUTH_WEBAUTHN_ORIGINS: named };
  const platform = await startPlatform({
    registryPort,
    authEnv: { ...relaxed, ...webauthn, CORS_ALLOWED_ORIGINS: `${origin},${named}` },
    socialEnv: { CORS_ALLOWED_ORIGINS: `${origin},${named}` },
    // Developer passkeys (docs/registry.md, "Passkeys"): the console on http://localhost is the page that uses them.
    registryEnv: { REGISTRY_WEBAUTHN_RP_ID: 'localhost', REGISTRY_WEBAUTHN_ORIGINS: named },
  });
  const browser = await chromium.launch(chromiumLaunchOptions([platform.authTls.cert, platform.socialTls.cert]));
  const transport = platformTransport(platform);
  const fetchImpl: FetchLike = transport.fetch;
  return {
    platform,
    browser,
    url: `${platform.registry.url}/console/`,
    player: (opts = {}) =>
      createClient({ authUrl: platform.auth.url, socialUrl: platform.socialUrl, storage: memoryStorage(), fetch: fetchImpl, WebSocket: transport.WebSocket, ...opts }),
    async close() {
      await browser.close();
      await platform.close();
      await transport.close();
    },
  };
}

/** A console tab in a fresh browser context, recording console messages and every token or secret it received. */
export interface ConsoleTab {
  context: BrowserContext;
  page: Page;
  /** Every console message and page error. */
  logs: string[];
  /** Every token and secret the services sent this tab (the developer token, access/refresh tokens, API secrets). */
  secrets: Set<string>;
}

const SECRET_FIELDS = ['Token', 'ApiSecret', 'access_token', 'refresh_token'];

export async function openConsole(rig: ConsoleRig, url = rig.url): Promise<ConsoleTab> {
  const context = await rig.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const tab: ConsoleTab = { context, page, logs: [], secrets: new Set() };
  page.on('console', (m) => tab.logs.push(m.text()));
  page.on('pageerror', (e) => tab.logs.push(String(e)));
  page.on('response', async (r) => {
    if (!(r.headers()['content-type'] ?? '').includes('json')) return;
    const body = (await r.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    for (const f of SECRET_FIELDS) if (typeof body?.[f] === 'string') tab.secrets.add(body[f] as string);
  });
  await page.goto(url);
  await page.locator('#staff-signin').waitFor();
  return tab;
}

/** Waits until an element matching `selector` contains `text`. */
export const shows = (page: Page, selector: string, text: string) => page.locator(selector, { hasText: text }).first().waitFor();

/** Nothing of the session outlives it in the browser: no storage, no cookie, no token in the logs or the page. */
export async function assertNothingKept(tab: ConsoleTab): Promise<void> {
  const kept = await tab.page.evaluate(() => ({ local: localStorage.length, session: sessionStorage.length, cookie: document.cookie, html: document.documentElement.outerHTML }));
  assert.equal(kept.local, 0, 'localStorage is empty');
  assert.equal(kept.session, 0, 'sessionStorage is empty');
  assert.equal(kept.cookie, '', 'no cookie');
  assert.deepEqual((await tab.context.cookies()).length, 0, 'no cookie in the browser context at all');
  assert.ok(tab.secrets.size > 0, 'the recorder saw the tokens');
  for (const s of tab.secrets) {
    assert.ok(!tab.logs.some((l) => l.includes(s)), 'no token or secret in the console messages');
    assert.ok(!kept.html.includes(s), 'no token or secret left in the page');
  }
}
