// Account pre-hijacking (issue 25, item 1): the first proof of a mailbox that was unverified on the account (a
// password reset or a verification) claims the account for the mailbox's owner: the guest credential and the
// platform identities linked before the proof stop working, every session ends. A real SMTP server carries the
// mails, a real OIDC provider issues the platform tickets.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, email, fingerprint, guest, harness, register, type Harness } from './support/harness.js';
import { startOidcProvider, type TestOidcProvider } from './support/oidc-provider.js';
import { startSmtpServer, tokenOf, type TestSmtpServer } from './support/smtp.js';

const ATTACKER_PASSWORD = 'the attacker chose this one 9';
const OWNER_PASSWORD = 'the owner of the mailbox 2026';

describe('account claim by the first proof of the mailbox', () => {
  let h: Harness;
  let smtp: TestSmtpServer;
  let idp: TestOidcProvider;
  let ip = 0;
  const nextIp = () => `10.90.${Math.floor(++ip / 250)}.${ip % 250}`;
  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    h.app.inject({ method: 'POST', url, payload: payload as object, headers, remoteAddress: nextIp() });
  const mailTo = (to: string, subject: string, from = 0) =>
    smtp.waitFor((m) => smtp.received.indexOf(m) >= from && m.envelopeTo.includes(to) && m.subject.includes(subject));
  const platformTicket = (sub: string) => idp.issueIdToken({ clientId: 'game-client', sub });

  /** The owner asks for a reset from their own mailbox and sets a password. */
  async function ownerResets(address: string) {
    const from = smtp.received.length;
    assert.equal((await post('/password/reset-request', { email: address })).statusCode, 202);
    const token = tokenOf(await mailTo(address, 'reset your password', from));
    const r = await post('/password/reset', { token, password: OWNER_PASSWORD });
    assert.equal(r.statusCode, 200, r.body);
    return r.json() as { sessions_revoked: number };
  }

  /** What the attacker still holds must be refused everywhere. */
  async function assertLockedOut(victimAccount: string, attacker: { access_token: string; refresh_token: string; guest_secret?: string }, idpSub: string) {
    const refresh = await post('/refresh', { refresh_token: attacker.refresh_token });
    assert.equal(refresh.statusCode, 401, 'the refresh token was spent by the claim');
    const view = await h.app.inject({ url: '/account', headers: bearer(attacker.access_token) });
    assert.equal(view.statusCode, 401);
    if (attacker.guest_secret) {
      const restore = await post('/guest/restore', { account_id: victimAccount, guest_secret: attacker.guest_secret, device_fingerprint: fingerprint() });
      assert.deepEqual([restore.statusCode, restore.json().code], [401, 'invalid_credentials']);
    }
    // The attacker's platform identity no longer opens the victim's account: it makes an account of its own.
    const platform = await post('/platform', { provider: 'idp_a', ticket: await platformTicket(idpSub) });
    assert.equal(platform.statusCode, 200, platform.body);
    assert.notEqual(platform.json().account_id, victimAccount);
    assert.equal(platform.json().account_created, true);
  }

  before(async () => {
    smtp = await startSmtpServer();
    idp = await startOidcProvider({ alg: 'ES256' });
    h = await harness({
      AUTH_SMTP_URL: smtp.url,
      AUTH_RATE_EMAIL_PER_IP: '1000',
      AUTH_RATE_LOGIN_PER_IP_EMAIL: '1000',
      AUTH_IDP_A_ISSUER: idp.issuer,
      AUTH_IDP_A_JWKS_URL: idp.jwksUrl,
      AUTH_IDP_A_AUDIENCE: 'game-client',
    });
  });
  after(async () => {
    await h.close();
    await idp.close();
    await smtp.close();
  });

  it('a guest links an address it does not own, adds a platform identity; the owner resets: guest secret, platform identity and sessions stop working', async () => {
    const victim = email();
    const attacker = await guest(h.app);
    const link = await post('/account/link', { email: victim, password: ATTACKER_PASSWORD }, bearer(attacker.access_token));
    assert.equal(link.statusCode, 200, link.body);
    const idpSub = `attacker-${Date.now()}-a`;
    const linked = await post('/account/link', { provider: 'idp_a', ticket: await platformTicket(idpSub) }, bearer(attacker.access_token));
    assert.equal(linked.statusCode, 200, linked.body);
    // Before the owner's proof the guest secret restores the account.
    const before = await post('/guest/restore', { account_id: attacker.account_id, guest_secret: attacker.guest_secret, device_fingerprint: fingerprint() });
    assert.equal(before.statusCode, 200, before.body);

    const reset = await ownerResets(victim);
    assert.equal(reset.sessions_revoked, 2);
    await assertLockedOut(attacker.account_id, { ...before.json(), guest_secret: attacker.guest_secret }, idpSub);

    // The owner signs in to an account holding their address alone.
    const owner = await post('/login', { email: victim, password: OWNER_PASSWORD });
    assert.equal(owner.statusCode, 200, owner.body);
    assert.equal(owner.json().account_id, attacker.account_id);
    const view = (await h.app.inject({ url: '/account', headers: bearer(owner.json().access_token) })).json();
    assert.deepEqual(view.identities.map((i: { provider: string; verified: boolean }) => [i.provider, i.verified]), [['email', true]]);
    const unlinks = await h.tdb.db.query<{ provider: string }>(
      `SELECT detail->>'provider' AS provider FROM audit_log WHERE account_id = $1 AND event = 'unlink' AND detail->>'by' = 'account_claim' ORDER BY 1`,
      [attacker.account_id],
    );
    assert.deepEqual(unlinks.rows.map((r) => r.provider), ['guest', 'idp_a']);
    // The claim is announced with account scope, so social closes the attacker's sockets.
    const notices = await h.tdb.db.query<{ payload: { reason: string; scope: string } }>(
      `SELECT payload FROM outbox WHERE topic = 'revocation' AND payload->>'account_id' = $1`,
      [attacker.account_id],
    );
    assert.ok(notices.rows.some((n) => n.payload.scope === 'account' && n.payload.reason === 'password_reset'));
  });

  it('a pre-made account (sign-up with the victim’s address, a platform identity linked): the owner confirming the mailed address claims it', async () => {
    const victim = email();
    const made = await post('/register', { email: victim, password: ATTACKER_PASSWORD });
    assert.equal(made.statusCode, 201, made.body);
    const attacker = made.json();
    const idpSub = `attacker-${Date.now()}-b`;
    const linked = await post('/platform', { provider: 'idp_a', ticket: await platformTicket(idpSub) }, bearer(attacker.access_token));
    assert.equal(linked.statusCode, 200, linked.body);
    assert.equal(linked.json().account_id, attacker.account_id);
    const platformSession = linked.json();

    // The verification mail reached the owner; the owner confirms the address.
    const verify = await post('/email/verify', { token: tokenOf(await mailTo(victim, 'confirm your email address')) });
    assert.equal(verify.statusCode, 200, verify.body);
    for (const s of [attacker, platformSession]) {
      const refresh = await post('/refresh', { refresh_token: s.refresh_token });
      assert.equal(refresh.statusCode, 401, 'the refresh token was spent by the claim');
    }
    const platform = await post('/platform', { provider: 'idp_a', ticket: await platformTicket(idpSub) });
    assert.notEqual(platform.json().account_id, attacker.account_id);
    const notices = await h.tdb.db.query<{ payload: { reason: string; scope: string } }>(
      `SELECT payload FROM outbox WHERE topic = 'revocation' AND payload->>'account_id' = $1`,
      [attacker.account_id],
    );
    assert.ok(notices.rows.some((n) => n.payload.scope === 'account' && n.payload.reason === 'account_claimed'), JSON.stringify(notices.rows));
    // The owner then resets (the password was the attacker's) and is alone in the account.
    await ownerResets(victim);
    const login = await post('/login', { email: victim, password: ATTACKER_PASSWORD });
    assert.equal(login.statusCode, 401);
  });

  it('the other order: the owner signed up first, so a guest cannot link the address', async () => {
    const owner = await register(h.app);
    const attacker = await guest(h.app);
    const link = await post('/account/link', { email: owner.email, password: ATTACKER_PASSWORD }, bearer(attacker.access_token));
    assert.equal(link.statusCode, 409);
    const view = (await h.app.inject({ url: '/account', headers: bearer(owner.access_token) })).json();
    assert.deepEqual(view.identities.map((i: { provider: string }) => i.provider), ['email']);
  });

  it('a player verifying their own fresh sign-up keeps the session; a verified account’s reset removes nothing', async () => {
    const u = await register(h.app);
    const verify = await post('/email/verify', { token: tokenOf(await mailTo(u.email, 'confirm your email address')) });
    assert.equal(verify.statusCode, 200);
    assert.equal((await h.app.inject({ url: '/account', headers: bearer(u.access_token) })).statusCode, 200);
    const linked = await post('/account/link', { provider: 'idp_a', ticket: await platformTicket(`owner-${Date.now()}`) }, bearer(u.access_token));
    assert.equal(linked.statusCode, 200, linked.body);
    await ownerResets(u.email);
    const login = await post('/login', { email: u.email, password: OWNER_PASSWORD });
    const view = (await h.app.inject({ url: '/account', headers: bearer(login.json().access_token) })).json();
    assert.deepEqual(view.identities.map((i: { provider: string }) => i.provider).sort(), ['email', 'idp_a']);
  });

  it('a guest upgrading honestly confirms from its own session (the game’s code entry): guest secret and session kept; the mail link’s page (no session) claims', async () => {
    for (const withSession of [true, false]) {
      const g = await guest(h.app);
      const address = email();
      const link = await post('/account/link', { email: address, password: OWNER_PASSWORD }, bearer(g.access_token));
      assert.equal(link.statusCode, 200, link.body);
      const token = tokenOf(await mailTo(address, 'confirm your email address'));
      const verify = await post('/email/verify', { token }, withSession ? bearer(g.access_token) : {});
      assert.equal(verify.statusCode, 200, verify.body);
      const view = await h.app.inject({ url: '/account', headers: bearer(g.access_token) });
      const restore = await post('/guest/restore', { account_id: g.account_id, guest_secret: g.guest_secret, device_fingerprint: fingerprint() });
      if (withSession) {
        assert.equal(view.statusCode, 200, 'the session goes on');
        assert.deepEqual(view.json().identities.map((i: { provider: string }) => i.provider).sort(), ['email', 'guest']);
        assert.equal(restore.statusCode, 200, restore.body);
      } else {
        assert.equal(view.statusCode, 401, 'the claim ended the session');
        assert.equal(restore.statusCode, 401);
      }
    }
    // Another account's token is no holder: the proof claims as from the link.
    const g = await guest(h.app);
    const other = await guest(h.app);
    const address = email();
    await post('/account/link', { email: address, password: OWNER_PASSWORD }, bearer(g.access_token));
    const token = tokenOf(await mailTo(address, 'confirm your email address'));
    assert.equal((await post('/email/verify', { token }, bearer(other.access_token))).statusCode, 200);
    assert.equal((await h.app.inject({ url: '/account', headers: bearer(g.access_token) })).statusCode, 401);
  });
});
