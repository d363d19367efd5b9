/** Sign-in (guest with restore, email, platform), the session's single-flight refresh, storage, sign-out, errors. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { memoryStorage, webStorage, type TokenStorage, type WebStorageLike } from '../src/index.js';
import { PASSWORD, rejects, startTestPlatform, uniqueEmail, type TestPlatform } from './support.js';

/** A Web Storage area (the localStorage interface) kept in a Map: Node has no localStorage. */
class MapStorage implements WebStorageLike {
  readonly map = new Map<string, string>();
  getItem(key: string) {
    return this.map.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.map.set(key, String(value));
  }
  removeItem(key: string) {
    this.map.delete(key);
  }
}

describe('client: sign-in and sessions against the real auth service', () => {
  let tp: TestPlatform;
  before(async () => {
    tp = await startTestPlatform();
  });
  after(async () => {
    await tp.close();
  });

  it('a guest sign-in whose answer is lost is retried with the same Idempotency-Key: one guest, not two', async () => {
    const sent: { key: string | undefined; accountId?: string }[] = [];
    const losing: typeof tp.fetch = async (url, init) => {
      const res = await tp.fetch(url, init);
      if (!url.endsWith('/guest')) return res;
      const headers = new Headers(init?.headers as HeadersInit);
      const body = (await (res as unknown as Response).clone().json()) as { account_id?: string };
      sent.push({ key: headers.get('idempotency-key') ?? undefined, accountId: body.account_id });
      // The service made the guest; the answer never reaches the game.
      if (sent.length === 1) throw new TypeError('fetch failed: connection reset');
      return res;
    };
    const c = tp.client({ fetch: losing });
    const signedIn = await c.auth.signInAsGuest();
    assert.equal(sent.length, 2);
    assert.match(sent[0].key ?? '', /^guest-[0-9a-f]{32}$/);
    assert.equal(sent[1].key, sent[0].key, 'the retry carries the same key');
    assert.equal(sent[1].accountId, sent[0].accountId, 'the retry answers the guest the first attempt made');
    assert.equal(signedIn.accountId, sent[0].accountId);
    assert.equal((await c.auth.account()).id, signedIn.accountId);
  });

  it('a guest signs in, and the same guest signs in again from the stored credentials', async () => {
    const storage = memoryStorage();
    const first = tp.client({ storage });
    const a = await first.auth.signInAsGuest();
    assert.equal(a.restored, false);
    const account = await first.auth.account();
    assert.equal(account.id, a.accountId);
    assert.equal(account.is_guest, true);
    const creds = await first.auth.guestCredentials();
    assert.equal(creds?.accountId, a.accountId);
    assert.ok(creds.guestSecret.length >= 43);

    // Signed out, the guest credentials stay: the next launch restores the same guest.
    await first.auth.signOut();
    assert.equal(await first.session.isSignedIn(), false);
    const second = tp.client({ storage });
    const b = await second.auth.signInAsGuest();
    assert.deepEqual(b, { accountId: a.accountId, restored: true });
    assert.equal((await second.social.me()).publicId, (await first.auth.signInAsGuest().then(() => first.social.me())).publicId);

    // A stored guest the service does not know (wrong secret) is replaced by a new guest.
    await storage.set('guest', JSON.stringify({ accountId: a.accountId, guestSecret: 'not-the-secret' }));
    const third = tp.client({ storage });
    const c = await third.auth.signInAsGuest();
    assert.equal(c.restored, false);
    assert.notEqual(c.accountId, a.accountId);
    assert.equal((await third.auth.guestCredentials())?.accountId, c.accountId);
  });

  it('email: register, then sign in from another client; wrong password and a taken email are PlatformErrors', async () => {
    const email = uniqueEmail('reg');
    const one = tp.client();
    const reg = await one.auth.register({ email, password: PASSWORD, display_name: 'Reggie' });
    assert.ok(reg.accountId);
    const two = tp.client();
    const login = await two.auth.signInWithEmail({ email, password: PASSWORD });
    assert.equal(login.accountId, reg.accountId);
    assert.equal((await two.auth.account()).is_guest, false);

    const wrong = await rejects(tp.client().auth.signInWithEmail({ email, password: 'not the right passphrase' }), 401, 'invalid_credentials');
    assert.equal(wrong.source, 'auth');
    assert.match(wrong.requestId ?? '', /.+/);
    assert.equal(wrong.retryAfter, undefined);
    await rejects(tp.client().auth.register({ email, password: PASSWORD }), 409, 'email_taken');
    const weak = await rejects(tp.client().auth.register({ email: uniqueEmail('weak'), password: 'short' }), 400, 'weak_password');
    assert.equal(weak.details.reason, 'too_short');
    await rejects(tp.client().auth.signInWithPlatform({ provider: 'store_b', ticket: 'whatever' }), 400, 'provider_not_configured');
  });

  it('many concurrent calls on an expired access token share one refresh, and the session survives it', async () => {
    let offsetMs = 0;
    const c = tp.client({ now: () => Date.now() + offsetMs });
    await c.auth.signInAsGuest();
    const before = await c.session.get();
    // Eleven minutes later by the client's clock: the 10-minute access token is past its refresh point.
    offsetMs = 11 * 60_000;
    const refreshesBefore = tp.fetched.filter((u) => u.endsWith('/refresh')).length;
    const results = await Promise.all([
      ...Array.from({ length: 12 }, () => c.social.me()),
      ...Array.from({ length: 4 }, () => c.auth.account()),
      ...Array.from({ length: 4 }, () => c.session.accessToken()),
    ]);
    assert.equal(results.length, 20);
    assert.equal(tp.fetched.filter((u) => u.endsWith('/refresh')).length - refreshesBefore, 1, 'exactly one refresh');
    const after = await c.session.get();
    assert.notEqual(after?.refreshToken, before?.refreshToken);
    // The session lives on: more calls, and further refreshes, work.
    await c.social.me();
    await c.session.refresh();
    assert.ok((await c.auth.account()).id);
  });

  it('(control) two refreshes of one token at once end the session — what single-flight prevents', async () => {
    const c = tp.client();
    await c.auth.signInAsGuest();
    const s = await c.session.get();
    const raw = () =>
      tp.fetch(`${tp.platform.auth.url}/refresh`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refresh_token: s!.refreshToken }),
      });
    const statuses = (await Promise.all([raw(), raw()])).map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 401]);
    // The session is revoked: the client's own refresh (of the spent token) fails and it is signed out.
    await rejects(c.session.refresh(), 401, 'token_reused');
    assert.equal(await c.session.isSignedIn(), false);
    await rejects(c.social.me(), 401, 'not_signed_in');
  });

  it('storage: a Web Storage area (prefixed keys) and a custom async store carry the session to a new client', async () => {
    const area = new MapStorage();
    const a = tp.client({ storage: webStorage(area, 'game.') });
    await a.auth.signInAsGuest();
    assert.deepEqual([...area.map.keys()].sort(), ['game.device', 'game.guest', 'game.session']);
    const again = tp.client({ storage: webStorage(area, 'game.') });
    assert.equal(await again.session.isSignedIn(), true);
    assert.equal((await again.social.me()).publicId, (await a.social.me()).publicId);

    const map = new Map<string, string>();
    const asyncStore: TokenStorage = {
      get: async (k) => map.get(k),
      set: async (k, v) => void map.set(k, v),
      remove: async (k) => void map.delete(k),
    };
    const b = tp.client({ storage: asyncStore });
    const signIn = await b.auth.register({ email: uniqueEmail('store'), password: PASSWORD });
    const restarted = tp.client({ storage: asyncStore });
    assert.equal((await restarted.auth.account()).id, signIn.accountId);
    assert.throws(() => webStorage(undefined), /no globalThis.localStorage/);
  });

  it('sign-out ends the session on the service; the account can be linked, exported and deleted', async () => {
    const c = tp.client();
    const g = await c.auth.signInAsGuest();
    const email = uniqueEmail('link');
    const linked = await c.auth.link({ email, password: PASSWORD });
    assert.deepEqual(linked.identities.map((i) => i.provider).sort(), ['email', 'guest']);
    assert.equal((await c.auth.account()).is_guest, false);
    await rejects(c.auth.unlink({ provider: 'store_a' }), 404, 'identity_not_found');
    const unlinked = await c.auth.unlink({ provider: 'guest' });
    assert.deepEqual(unlinked.identities.map((i) => i.provider), ['email']);
    const updated = await c.auth.updateAccount({ display_name: 'Linked' });
    assert.equal(updated.display_name, 'Linked');
    const exported = await c.auth.exportAccount();
    assert.equal((exported.account as { id: string }).id, g.accountId);

    const stale = (await c.session.get())!.refreshToken;
    await c.auth.signOut();
    const r = await tp.fetch(`${tp.platform.auth.url}/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: stale }),
    });
    assert.equal(r.status, 401);
    await rejects(c.auth.account(), 401, 'not_signed_in');

    await c.auth.signInWithEmail({ email, password: PASSWORD });
    const deleted = await c.auth.deleteAccount();
    assert.equal(deleted.status, 'deleted');
    assert.equal(await c.session.isSignedIn(), false);
    await rejects(tp.client().auth.signInWithEmail({ email, password: PASSWORD }), 401, 'invalid_credentials');
  });
});
