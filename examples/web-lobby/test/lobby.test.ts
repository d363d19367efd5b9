/**
 * The web lobby in a real browser: Debian's Chromium driven through playwright-core, two players in two
 * browser contexts, against the three services in this process (@platform/e2e's startPlatform, real HTTPS).
 * The page comes from its own origin (src/serve.ts on its own port); the services allow exactly that origin
 * (CORS_ALLOWED_ORIGINS), and a page from another origin is refused.
 *
 * The services' certificates are self-signed: Chromium trusts exactly their two keys
 * (--ignore-certificate-errors-spki-list), nothing else.
 *
 * Without /usr/bin/chromium the suite skips, unless REQUIRE_CHROMIUM=1 (.ci/run), where it fails.
 */
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chromiumLaunchOptions, chromiumSkip } from '@platform/kit/testing';
import { freePort, startPlatform, type Platform } from '@platform/e2e';
import { startLobbyServer, type LobbyServer } from '../src/serve.js';

/** Waits until an element matching `selector` contains `text` (the page updates live; no reloads). */
const shows = (page: Page, selector: string, text: string) => page.locator(selector, { hasText: text }).first().waitFor();

/** Clicks the button labelled `label` inside the list item of `selector` that contains `text`. */
async function clickIn(page: Page, selector: string, text: string, label: string): Promise<void> {
  await page.locator(selector, { hasText: text }).first().getByRole('button', { name: label }).click();
}

/** Opens the lobby in a fresh browser context and signs in as a guest; answers the page and the full handle. */
async function signIn(browser: Browser, url: string, name: string): Promise<{ page: Page; handle: string }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  await shows(page, '#status', 'Ready');
  await page.fill('#name', name);
  await page.click('#guest');
  await page.locator('#lobby').waitFor();
  const handle = (await page.locator('#handle').textContent()) ?? '';
  assert.match(handle, new RegExp(`^${name}#\\d{4}$`));
  return { page, handle };
}

/** What fetch(url) does in this page: 'ok <status>' or 'rejected <error name>'. */
const fetchFrom = (page: Page, url: string) =>
  page.evaluate(async (u) => {
    try {
      return `ok ${(await fetch(u)).status}`;
    } catch (e) {
      return `rejected ${(e as Error).name}`;
    }
  }, url);

describe('web lobby: two players in Chromium', { skip: chromiumSkip() }, () => {
  let platform: Platform;
  let lobby: LobbyServer;
  let foreign: LobbyServer;
  let browser: Browser;
  let keyedPort: number;
  let secondNodePort: number;

  before(async () => {
    // The lobbies' origins must be known before the services start (their CORS list), so the ports come first:
    // the lobby, and the lobby configured with a client key (the last test).
    const lobbyPort = await freePort();
    keyedPort = await freePort();
    secondNodePort = await freePort();
    const origin = `http://127.0.0.1:${lobbyPort}`;
    const allowed = `${origin},http://127.0.0.1:${keyedPort},http://127.0.0.1:${secondNodePort}`;
    // Two social nodes on one database and state store (the reconnect test stops the first).
    // Guests may create groups here (the default refuses them `group_create`; the lobby signs in guests only).
    const socialEnv = { CORS_ALLOWED_ORIGINS: allowed, SOCIAL_GUEST_RESTRICTED: 'friend_requests_over_limit,reports' };
    platform = await startPlatform({ authEnv: { CORS_ALLOWED_ORIGINS: allowed }, socialEnv, socialNodes: 2 });
    const config = { authUrl: platform.auth.url, socialUrl: platform.socialUrl };
    lobby = await startLobbyServer({ config, port: lobbyPort });
    assert.equal(lobby.url, origin);
    foreign = await startLobbyServer({ config }); // the same page on another port: an origin the services refuse
    browser = await chromium.launch(chromiumLaunchOptions([platform.authTls.cert, platform.socialTls.cert]));
  });

  after(async () => {
    await browser?.close();
    await lobby?.close();
    await foreign?.close();
    await platform?.close();
  });

  it('A finds B and befriends them live, they party and chat, and B sees A’s presence', async () => {
    const a = await signIn(browser, lobby.url, 'Ada');
    const b = await signIn(browser, lobby.url, 'Bob');

    // A finds B by full handle and sends a request; B sees it arrive (realtime) and accepts.
    await a.page.fill('#search', b.handle);
    await a.page.click('#search-go');
    await clickIn(a.page, '#results li', b.handle, 'Add friend');
    await shows(a.page, '#status', `Friend request sent to ${b.handle}`);
    await shows(b.page, '#requests li', a.handle);
    await clickIn(b.page, '#requests li', a.handle, 'Accept');
    await shows(b.page, '#friends li', a.handle);
    await shows(a.page, '#friends li', b.handle); // friendRequestAccepted, live
    await shows(a.page, '#status', `${b.handle} accepted your friend request`);

    // A creates a party and invites B; B gets the invite live and joins; A sees B join.
    await a.page.click('#create-party');
    await shows(a.page, '#members li', `${a.handle} (leader)`);
    await clickIn(a.page, '#friends li', b.handle, 'Invite');
    await shows(a.page, '#status', `Invited ${b.handle}`);
    await shows(b.page, '#invites li', `Party invite from ${a.handle}`);
    await clickIn(b.page, '#invites li', a.handle, 'Join');
    await shows(b.page, '#members li', `${a.handle} (leader)`);
    await shows(b.page, '#members li', b.handle);
    await shows(a.page, '#members li', b.handle); // partyMemberJoined, live

    // Party chat: each sees the other's message (and their own).
    await a.page.fill('#chat-text', 'hello from Ada');
    await a.page.click('#chat-send');
    await shows(b.page, '#messages li', `${a.handle}: hello from Ada`);
    await b.page.fill('#chat-text', 'hi Ada, ready?');
    await b.page.click('#chat-send');
    await shows(a.page, '#messages li', `${b.handle}: hi Ada, ready?`);
    await shows(a.page, '#messages li', `${a.handle}: hello from Ada`);
    await shows(b.page, '#messages li', `${b.handle}: hi Ada, ready?`);
    assert.equal(await a.page.locator('#messages li').count(), 2);

    // Presence: A goes busy with an activity; A's page shows both, B's friend list shows A busy, live.
    // (The activity reaches other players only within a game: social filters rich presence by the caller's
    // game, and this page has no client key — see the next test.)
    await a.page.selectOption('#state', 'busy');
    await a.page.fill('#activity', 'Exploring the caves');
    await a.page.click('#set-presence');
    await shows(a.page, '#my-presence', 'You are busy — Exploring the caves');
    await shows(b.page, '#friends li', `(busy`);
    assert.match((await b.page.locator('#friends li', { hasText: a.handle }).textContent()) ?? '', /\(busy/);
    assert.equal(await a.page.locator('#status.error').count(), 0, await a.page.locator('#status').textContent() ?? '');
    assert.equal(await b.page.locator('#status.error').count(), 0, await b.page.locator('#status').textContent() ?? '');
  });

  it('groups: A creates a request group, B finds it and asks, A accepts live, both see the members and chat, A kicks B and invites B back', async () => {
    const a = await signIn(browser, lobby.url, 'Gus');
    const b = await signIn(browser, lobby.url, 'Hal');
    const name = `Lobby Knights ${Math.random().toString(36).slice(2, 8)}`;
    const titled = `${name} [LK]`;
    await a.page.fill('#group-name', name);
    await a.page.fill('#group-tag', 'LK');
    await a.page.selectOption('#group-policy', 'request');
    await a.page.click('#create-group');
    await shows(a.page, '#status', `Group ${titled} created`);
    await shows(a.page, '#my-groups li', `${titled} (owner)`);
    await shows(a.page, '#group-members li', `${a.handle} (owner)`);

    // B finds the group by name and asks to join; A hears the request live and accepts it.
    await b.page.fill('#group-search', name);
    await b.page.click('#group-search-go');
    await clickIn(b.page, '#group-results li', name, 'Ask to join');
    await shows(b.page, '#status', `Asked to join ${titled}`);
    await shows(a.page, '#status', `${b.handle} asks to join your group`);
    await clickIn(a.page, '#group-requests li', b.handle, 'Accept');
    await shows(a.page, '#status', `${b.handle} joined ${titled}`);
    await shows(a.page, '#group-members li', `${b.handle} (member)`);
    await a.page.locator('#group-requests li').first().waitFor({ state: 'detached' });
    assert.equal(await a.page.locator('#group-requests li').count(), 0);

    // B hears the acceptance live and sees the members; a member may neither kick nor decide requests.
    await shows(b.page, '#status', `You joined ${titled}`);
    await clickIn(b.page, '#my-groups li', name, 'Open');
    await shows(b.page, '#group-members li', `${a.handle} (owner)`);
    await shows(b.page, '#group-members li', `${b.handle} (member)`);
    assert.equal(await b.page.locator('#group-members li button').count(), 0);
    assert.equal(await b.page.locator('#group-requests-box').isHidden(), true);

    // Group chat: each line reaches the other page live, named by its writer.
    await a.page.fill('#group-chat-text', 'Welcome, squire');
    await a.page.click('#group-chat-send');
    await shows(b.page, '#group-messages li', `${a.handle}: Welcome, squire`);
    await b.page.fill('#group-chat-text', 'Glad to serve');
    await b.page.click('#group-chat-send');
    await shows(a.page, '#group-messages li', `${b.handle}: Glad to serve`);

    // A kicks B: B hears it live, the group leaves B's page.
    await clickIn(a.page, '#group-members li', b.handle, 'Kick');
    await shows(a.page, '#status', `${b.handle} was removed from ${titled}`);
    await shows(b.page, '#status', 'You were removed from a group');
    await b.page.locator('#group').waitFor({ state: 'hidden' });
    // The lists are redrawn after the status line: wait for the removed rows to go (a loaded machine is slow to).
    await b.page.locator('#my-groups li').first().waitFor({ state: 'detached' });
    await a.page.locator('#group-members li', { hasText: b.handle }).waitFor({ state: 'detached' });
    assert.equal(await b.page.locator('#my-groups li').count(), 0);
    assert.deepEqual(await a.page.locator('#group-members li').allTextContents(), [`${a.handle} (owner)`]);

    // A invites B back by handle; B gets the invite live and joins through it.
    await a.page.fill('#group-invite-handle', b.handle);
    await a.page.click('#group-invite');
    await shows(a.page, '#status', `Invited ${b.handle} to ${titled}`);
    await shows(b.page, '#group-invites li', `Invite to ${titled}`);
    await clickIn(b.page, '#group-invites li', name, 'Join');
    await shows(b.page, '#my-groups li', `${titled} (member)`);
    await shows(a.page, '#group-members li', `${b.handle} (member)`);
    await b.page.locator('#group-invites li').first().waitFor({ state: 'detached' });
    assert.equal(await b.page.locator('#group-invites li').count(), 0);
    assert.equal(await a.page.locator('#status.error').count(), 0, (await a.page.locator('#status').textContent()) ?? '');
    assert.equal(await b.page.locator('#status.error').count(), 0, (await b.page.locator('#status').textContent()) ?? '');
  });

  it('finding players: C is suggested A (a mutual friend) and adds them; A lists a party, C finds it by mode and joins', async () => {
    const [a, b, c] = [await signIn(browser, lobby.url, 'Finn'), await signIn(browser, lobby.url, 'Bea'), await signIn(browser, lobby.url, 'Cal')];
    const befriend = async (from: typeof a, to: typeof a) => {
      await from.page.fill('#search', to.handle);
      await from.page.click('#search-go');
      await clickIn(from.page, '#results li', to.handle, 'Add friend');
      await clickIn(to.page, '#requests li', from.handle, 'Accept');
      await shows(from.page, '#friends li', to.handle);
    };
    await befriend(a, b);
    await befriend(b, c);
    await c.page.click('#suggestions-go');
    await shows(c.page, '#suggestions li', `${a.handle} (1 mutual friend)`);
    await clickIn(c.page, '#suggestions li', a.handle, 'Add friend');
    await shows(c.page, '#status', `Friend request sent to ${a.handle}`);
    await shows(a.page, '#requests li', c.handle);

    await a.page.click('#create-party');
    await shows(a.page, '#members li', `${a.handle} (leader)`);
    await a.page.fill('#list-mode', 'duo');
    await a.page.click('#list-party');
    await shows(a.page, '#status', 'Party listed for duo');
    await c.page.fill('#parties-mode', 'duo');
    await c.page.click('#parties-go');
    await shows(c.page, '#open-parties li', `${a.handle}'s party — duo — 3 free`);
    await clickIn(c.page, '#open-parties li', a.handle, 'Join');
    await shows(c.page, '#members li', `${a.handle} (leader)`);
    await shows(a.page, '#members li', c.handle); // partyMemberJoined, live
    await c.page.fill('#parties-mode', 'squad');
    await c.page.click('#parties-go');
    await shows(c.page, '#open-parties li', 'No open parties');
    for (const p of [a, b, c]) assert.equal(await p.page.locator('#status.error').count(), 0, (await p.page.locator('#status').textContent()) ?? '');
  });

  it('a dropped connection resumes: the party chat sent while A was away arrives by replay, without re-reading', async () => {
    // A's page talks to social node 1, B's page (another lobby server) to node 2; node 1 then goes down and up.
    const other = await startLobbyServer({ config: { authUrl: platform.auth.url, socialUrl: platform.socialNodes[1].url }, port: secondNodePort });
    try {
      const a = await signIn(browser, lobby.url, 'Eve');
      const b = await signIn(browser, other.url, 'Fin');
      await a.page.fill('#search', b.handle);
      await a.page.click('#search-go');
      await clickIn(a.page, '#results li', b.handle, 'Add friend');
      await clickIn(b.page, '#requests li', a.handle, 'Accept');
      await shows(a.page, '#friends li', b.handle);
      await a.page.click('#create-party');
      await shows(a.page, '#members li', `${a.handle} (leader)`);
      await clickIn(a.page, '#friends li', b.handle, 'Invite');
      await clickIn(b.page, '#invites li', a.handle, 'Join');
      await shows(a.page, '#members li', b.handle);

      // From here on, every HTTP read of A's page is recorded: a resumed page reads nothing again.
      const reads: string[] = [];
      a.page.on('request', (r) => {
        if (r.method() === 'GET' && r.url().startsWith(platform.socialUrl)) reads.push(new URL(r.url()).pathname);
      });
      // Node 1 goes away as in a network drop (every connection cut), and comes back a moment later.
      await platform.stopSocial({ abrupt: true });
      await shows(a.page, '#status', 'Connection lost');
      for (const text of ['while you were away', 'still away']) {
        await b.page.fill('#chat-text', text);
        await b.page.click('#chat-send');
        await shows(b.page, '#messages li', `${b.handle}: ${text}`);
      }
      assert.equal(await a.page.locator('#messages li').count(), 0, 'A is away');
      await platform.startSocial();
      await shows(a.page, '#status', 'Reconnected: caught up on what was missed');
      await shows(a.page, '#messages li', `${b.handle}: still away`);
      assert.deepEqual(
        await a.page.locator('#messages li').allTextContents(),
        [`${b.handle}: while you were away`, `${b.handle}: still away`],
        'both, once, in order',
      );
      assert.deepEqual(reads.filter((p) => p !== '/v1/ws'), [], 'nothing re-read over HTTP: the events were replayed');
      // And live again.
      await b.page.fill('#chat-text', 'welcome back');
      await b.page.click('#chat-send');
      await shows(a.page, '#messages li', `${b.handle}: welcome back`);
    } finally {
      await other.close();
    }
  });

  it('CORS: a page from another origin cannot call auth or social (fetch rejects); the lobby origin can', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(foreign.url);
    const jwks = `${platform.auth.url}/.well-known/jwks.json`;
    const social = `${platform.socialUrl}/v1/me`;
    assert.equal(await fetchFrom(page, jwks), 'rejected TypeError');
    assert.equal(await fetchFrom(page, social), 'rejected TypeError');
    await page.goto(lobby.url);
    assert.equal(await fetchFrom(page, jwks), 'ok 200');
    assert.equal(await fetchFrom(page, social), 'ok 401'); // allowed origin; no token
    await context.close();
  });

  it('with the game’s client key, B sees A’s rich presence (activity) live', async (t: TestContext) => {
    // Social's client-key support (X-Platform-Client-Key, allowed by CORS) is being built separately: until its
    // preflight allows the header, this test skips instead of depending on it.
    if (!(await clientKeyAllowed(platform, lobby.url))) return t.skip('social does not accept X-Platform-Client-Key from browsers yet');
    const clientKey = await newGameClientKey(platform);
    const keyed = await startLobbyServer({ config: { authUrl: platform.auth.url, socialUrl: platform.socialUrl, clientKey }, port: keyedPort });
    try {
      const a = await signIn(browser, keyed.url, 'Cy');
      const b = await signIn(browser, keyed.url, 'Di');
      await a.page.fill('#search', b.handle);
      await a.page.click('#search-go');
      await clickIn(a.page, '#results li', b.handle, 'Add friend');
      await clickIn(b.page, '#requests li', a.handle, 'Accept');
      await shows(a.page, '#friends li', b.handle);
      await a.page.fill('#activity', 'Racing on Mars');
      await a.page.click('#set-presence');
      await shows(b.page, '#friends li', 'Racing on Mars');
    } finally {
      await keyed.close();
    }
  });
});

/** Whether social's CORS preflight lets the lobby's origin send X-Platform-Client-Key. */
async function clientKeyAllowed(platform: Platform, origin: string): Promise<boolean> {
  const r = await platform.social.call('OPTIONS', '/v1/me', {
    headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization,x-platform-client-key' },
  });
  return String(r.headers['access-control-allow-headers'] ?? '').toLowerCase().includes('x-platform-client-key');
}

/** A developer registers a game in the registry; answers its public client key. */
async function newGameClientKey(platform: Platform): Promise<string> {
  const tag = Math.random().toString(36).slice(2, 10);
  const dev = await platform.registry.call('POST', '/developers/register', {
    body: { Email: `dev.${tag}@lobby.test`, Password: 'a perfectly long test passphrase', DisplayName: 'Lobby Studio' },
  });
  const g = await platform.registry.call('POST', '/games', { token: dev.body.Token, body: { DisplayName: 'Lobby Game' } });
  assert.equal(g.status, 201, JSON.stringify(g.body));
  assert.ok(g.body.Game.ClientKey, 'the registry gives every game a ClientKey');
  return g.body.Game.ClientKey;
}
