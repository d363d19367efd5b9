// Password reset by mail (real SMTP server in the test): request (202 alike for every address), token, reset,
// every session revoked, audit; used, expired and unknown tokens; rate limits; enumeration.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { auditCount, bearer, email, harness, register, useMailHarness, assertError } from './support/harness.js';
import { tokenOf } from './support/smtp.js';

const NEW_PASSWORD = 'a brand new passphrase 77';

describe('password reset', () => {
  const { h, smtp } = useMailHarness({
    AUTH_MAIL_PRODUCT_NAME: 'Space Race',
    AUTH_MAIL_FROM: 'Space Race <no-reply@space-race.test>',
    AUTH_PUBLIC_URL: 'https://auth.space-race.test/',
    AUTH_RATE_EMAIL_PER_ADDRESS: '4',
    AUTH_RATE_EMAIL_PER_IP: '1000',
    AUTH_RATE_LOGIN_PER_IP_EMAIL: '1000',
  }, { user: 'mailer', pass: 'smtp-pass-1' });
  let ip = 0;
  /** A fresh address per call: the per-IP limits stay out of the tests that are not about them. */
  const nextIp = () => `10.50.${Math.floor(++ip / 250)}.${ip % 250}`;
  const post = (url: string, payload: unknown, remoteAddress = nextIp(), headers: Record<string, string> = {}) =>
    h.app.inject({ method: 'POST', url, payload: payload as object, remoteAddress, headers });
  const resetMailTo = (to: string) => smtp.waitFor((m) => m.envelopeTo.includes(to) && m.subject.includes('reset your password'));
  const requestToken = async (to: string) => {
    const before = smtp.received.length;
    assert.equal((await post('/password/reset-request', { email: to })).statusCode, 202);
    const m = await smtp.waitFor((x) => smtp.received.indexOf(x) >= before && x.envelopeTo.includes(to) && x.subject.includes('reset your password'));
    return tokenOf(m);
  };

  it('mails a token (link and code, in the product name) over SMTP; the reset sets the password and ends every session', async () => {
    const u = await register(h.app);
    const second = await post('/login', { email: u.email, password: u.password });
    assert.equal(second.statusCode, 200);

    const r = await post('/password/reset-request', { email: u.email.toUpperCase() });
    assert.equal(r.statusCode, 202);
    assert.deepEqual(r.json(), { status: 'accepted' });
    const m = await resetMailTo(u.email);
    assert.equal(m.envelopeFrom, 'no-reply@space-race.test');
    assert.equal(m.subject, 'Space Race: reset your password');
    const token = tokenOf(m);
    assert.equal(Buffer.from(token, 'base64url').length, 32, '256 bits');
    assert.ok(m.text.includes(`https://auth.space-race.test/email-link/reset-password#token=${token}`), m.text);
    assert.match(m.text, /for 30 minutes/);
    assert.ok(m.html.includes(`https://auth.space-race.test/email-link/reset-password#token=${token}`));
    // Only the hash is stored.
    const stored = await h.tdb.db.query<{ token_hash: string }>(`SELECT token_hash FROM email_tokens WHERE account_id = $1`, [u.account_id]);
    assert.ok(stored.rows.length >= 1);
    assert.ok(stored.rows.every((row) => row.token_hash !== token && /^[0-9a-f]{64}$/.test(row.token_hash)));

    const done = await post('/password/reset', { token, password: NEW_PASSWORD });
    assert.equal(done.statusCode, 200, done.body);
    assert.equal(done.json().sessions_revoked, 2);

    // Every session ended: access tokens refused (deny set), refresh tokens dead.
    assert.equal((await h.app.inject({ method: 'GET', url: '/account', headers: bearer(u.access_token) })).statusCode, 401);
    assert.equal((await h.app.inject({ method: 'GET', url: '/account', headers: bearer(second.json().access_token) })).statusCode, 401);
    for (const rt of [u.refresh_token, second.json().refresh_token]) {
      const x = await post('/refresh', { refresh_token: rt });
      assert.equal(x.statusCode, 401);
    }
    // The new password signs in, the old one does not.
    assert.equal((await post('/login', { email: u.email, password: u.password })).statusCode, 401);
    const l = await post('/login', { email: u.email, password: NEW_PASSWORD });
    assert.equal(l.statusCode, 200);
    // The mail reached the address: it counts as verified.
    const acc = await h.app.inject({ method: 'GET', url: '/account', headers: bearer(l.json().access_token) });
    assert.equal(acc.json().identities[0].verified, true);
    // Audit entry, the revocation notice, the owner told.
    const a = await h.tdb.db.query(`SELECT detail FROM audit_log WHERE account_id = $1 AND event = 'password_reset'`, [u.account_id]);
    assert.equal(a.rows.length, 1);
    assert.equal(a.rows[0].detail.sessions_revoked, 2);
    const notice = await h.tdb.db.query(`SELECT payload FROM outbox WHERE topic = 'revocation' AND payload->>'account_id' = $1`, [u.account_id]);
    assert.equal(notice.rows[0].payload.reason, 'password_reset');
    assert.equal(notice.rows[0].payload.scope, 'account');
    assert.equal(notice.rows[0].payload.sids.length, 2);
    await smtp.waitFor((x) => x.envelopeTo.includes(u.email) && x.subject === 'Space Race: your password was reset');
  });

  it('a token works once (410 email_token_used); the other reset tokens of the account die with it', async () => {
    const u = await register(h.app);
    const first = await requestToken(u.email);
    const second = await requestToken(u.email);
    assert.notEqual(first, second);
    assert.equal((await post('/password/reset', { token: second, password: NEW_PASSWORD })).statusCode, 200);
    for (const t of [second, first]) {
      assertError(await post('/password/reset', { token: t, password: 'yet another long passphrase' }), 410, 'email_token_used');
    }
    assert.equal((await post('/login', { email: u.email, password: NEW_PASSWORD })).statusCode, 200);
  });

  it('concurrent uses of one token: exactly one resets', async () => {
    const u = await register(h.app);
    const token = await requestToken(u.email);
    const rs = await Promise.all(Array.from({ length: 5 }, (_, i) => post('/password/reset', { token, password: `${NEW_PASSWORD} ${i}` })));
    assert.deepEqual(rs.map((r) => r.statusCode).sort(), [200, 410, 410, 410, 410]);
    assert.equal(await auditCount(h, u.account_id, 'password_reset'), 1);
  });

  it('an expired token → 410 email_token_expired; unknown and malformed tokens → 400 invalid_email_token', async () => {
    const u = await register(h.app);
    const token = await requestToken(u.email);
    await h.tdb.db.query(`UPDATE email_tokens SET expires_at = now() - interval '1 second' WHERE account_id = $1`, [u.account_id]);
    assertError(await post('/password/reset', { token, password: NEW_PASSWORD }), 410, 'email_token_expired');
    for (const t of ['A'.repeat(43), 'not a token', 'x', '%00'.repeat(10)]) {
      const r = await post('/password/reset', { token: t, password: NEW_PASSWORD });
      assert.equal(r.statusCode, 400, t);
      assert.equal(r.json().code, 'invalid_email_token');
    }
    assert.equal((await post('/login', { email: u.email, password: u.password })).statusCode, 200, 'the password is unchanged');
  });

  it('a verification token is not a reset token (400), and a weak password spends nothing (400 weak_password, then the token works)', async () => {
    const e = email();
    const before = smtp.received.length;
    await register(h.app, e);
    const verify = tokenOf(await smtp.waitFor((m) => smtp.received.indexOf(m) >= before && m.envelopeTo.includes(e) && m.subject.includes('confirm')));
    assertError(await post('/password/reset', { token: verify, password: NEW_PASSWORD }), 400, 'invalid_email_token');

    const token = await requestToken(e);
    for (const [password, reason] of [
      ['short', 'too_short'],
      ['password123', 'common'],
      ['x'.repeat(300), 'too_long'],
    ]) {
      const weak = await post('/password/reset', { token, password });
      assert.equal(weak.statusCode, 400);
      assert.deepEqual([weak.json().code, weak.json().reason], ['weak_password', reason]);
    }
    assert.equal((await post('/password/reset', { token, password: NEW_PASSWORD })).statusCode, 200);
  });

  it('no mail for an unknown address or a banned account; the same 202 body and headers for all', async () => {
    const known = await register(h.app);
    const banned = await register(h.app);
    await h.tdb.db.query(`UPDATE accounts SET status = 'banned' WHERE id = $1`, [banned.account_id]);
    const unknown = email();
    const shape = (r: Awaited<ReturnType<typeof post>>) => ({
      status: r.statusCode,
      body: r.body,
      headers: Object.keys(r.headers)
        .filter((k) => !['date', 'x-request-id'].includes(k))
        .sort()
        .map((k) => `${k}: ${k === 'content-length' || k.startsWith('x-ratelimit') ? '' : r.headers[k]}`),
    });
    await h.app.auth.mailer.idle(); // the sign-ups' verification mails are out
    const before = smtp.received.length;
    const answers = [];
    for (const e of [known.email, unknown, banned.email]) answers.push(shape(await post('/password/reset-request', { email: e })));
    assert.deepEqual(answers[1], answers[0]);
    assert.deepEqual(answers[2], answers[0]);
    await smtp.waitFor((m) => smtp.received.indexOf(m) >= before && m.envelopeTo.includes(known.email));
    await h.app.auth.mailer.idle();
    const sent = smtp.received.slice(before).flatMap((m) => m.envelopeTo);
    assert.deepEqual(sent, [known.email], 'only the known, active address got a mail');
    const rows = await h.tdb.db.query(`SELECT count(*)::int AS n FROM email_tokens WHERE purpose = 'password_reset' AND (email = $1 OR email = $2)`, [unknown, banned.email]);
    assert.equal(rows.rows[0].n, 0);
  });

  it('rate limits: per address (AUTH_RATE_EMAIL_PER_ADDRESS, whatever the IP, known or not) and per IP', async () => {
    for (const target of [(await register(h.app)).email, email()]) {
      const codes = [];
      for (let i = 0; i < 6; i++) codes.push((await post('/password/reset-request', { email: target })).statusCode);
      assert.deepEqual(codes, [202, 202, 202, 202, 429, 429], target);
    }
    const limited = await harness({ AUTH_SMTP_URL: smtp.url, AUTH_RATE_EMAIL_PER_IP: '3' });
    try {
      const codes = [];
      for (let i = 0; i < 5; i++) {
        const r = await limited.app.inject({ method: 'POST', url: '/password/reset-request', payload: { email: email() }, remoteAddress: '10.60.0.1' });
        codes.push(r.statusCode);
        if (r.statusCode === 429) {
          assert.equal(r.json().code, 'rate_limited');
          assert.ok(Number(r.headers['retry-after']) > 0);
        }
      }
      assert.deepEqual(codes, [202, 202, 202, 429, 429]);
      // The reset itself counts on the same per-IP limit (malformed bodies too: checked before the body is read).
      const r = await limited.app.inject({ method: 'POST', url: '/password/reset', headers: { 'content-type': 'application/json' }, payload: '{', remoteAddress: '10.60.0.1' });
      assert.equal(r.statusCode, 429);
    } finally {
      await limited.close();
    }
  });
});
