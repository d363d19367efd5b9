// Email verification (sign-up, link, resend) and email change (POST /account/email); mails through a real SMTP
// server started here. AUTH_EMAIL_VERIFICATION=required: email-verification-required.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { auditCount, bearer, email, guest, GOOD_PASSWORD, register, useMailHarness, type Harness, assertError } from './support/harness.js';
import { tokenOf, type ReceivedMail, type TestSmtpServer } from './support/smtp.js';

let ip = 0;
const nextIp = () => `10.70.${Math.floor(++ip / 250)}.${ip % 250}`;

function helpers(get: () => { h: Harness; smtp: TestSmtpServer }) {
  const post = (url: string, payload: unknown, headers: Record<string, string> = {}, remoteAddress = nextIp()) =>
    get().h.app.inject({ method: 'POST', url, payload: payload as object, headers, remoteAddress });
  /** The next mail to `to` whose subject contains `subject`, among those arriving after `from`. */
  const mailTo = (to: string, subject: string, from = 0) =>
    get().smtp.waitFor((m: ReceivedMail) => get().smtp.received.indexOf(m) >= from && m.envelopeTo.includes(to) && m.subject.includes(subject));
  const account = async (token: string) => (await get().h.app.inject({ method: 'GET', url: '/account', headers: bearer(token) })).json();
  return { post, mailTo, account };
}

describe('email verification and email change', () => {
  const { h, smtp } = useMailHarness({ AUTH_MAIL_PRODUCT_NAME: 'Space Race', AUTH_RATE_EMAIL_PER_IP: '1000', AUTH_RATE_EMAIL_PER_ADDRESS: '3' });
  const { post, mailTo, account } = helpers(() => ({ h, smtp }));

  it('sign-up mails a verification token; POST /email/verify marks the identity verified, once', async () => {
    const u = await register(h.app);
    assert.equal((await account(u.access_token)).identities[0].verified, false);
    const m = await mailTo(u.email, 'confirm your email address');
    assert.equal(m.subject, 'Space Race: confirm your email address');
    const token = tokenOf(m);
    assert.ok(m.text.includes(`https://localhost:8443/email-link/verify-email#token=${token}`));
    const r = await post('/email/verify', { token });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), { email: u.email, verified: true, changed: false });
    assert.equal((await account(u.access_token)).identities[0].verified, true);
    assertError(await post('/email/verify', { token }), 410, 'email_token_used');
    assert.equal(await auditCount(h, u.account_id, 'email_verified'), 1);
  });

  it('a guest linking an email is mailed a token too; expired → 410, unknown → 400, a reset token → 400', async () => {
    const g = await guest(h.app);
    const e = email();
    const link = await h.app.inject({ method: 'POST', url: '/account/link', headers: bearer(g.access_token), payload: { email: e, password: GOOD_PASSWORD } });
    assert.equal(link.statusCode, 200);
    const token = tokenOf(await mailTo(e, 'confirm'));
    await h.tdb.db.query(`UPDATE email_tokens SET expires_at = now() - interval '1 minute' WHERE account_id = $1`, [g.account_id]);
    const expired = await post('/email/verify', { token });
    assert.deepEqual([expired.statusCode, expired.json().code], [410, 'email_token_expired']);
    const unknown = await post('/email/verify', { token: 'B'.repeat(43) });
    assert.deepEqual([unknown.statusCode, unknown.json().code], [400, 'invalid_email_token']);
    const from = smtp.received.length;
    assert.equal((await post('/password/reset-request', { email: e })).statusCode, 202);
    const reset = tokenOf(await mailTo(e, 'reset your password', from));
    const wrong = await post('/email/verify', { token: reset });
    assert.deepEqual([wrong.statusCode, wrong.json().code], [400, 'invalid_email_token']);
  });

  it('resend: 202 alike for unverified, verified and unknown addresses; a mail only to the unverified one; limited per address', async () => {
    const unverified = await register(h.app);
    const verified = await register(h.app);
    await post('/email/verify', { token: tokenOf(await mailTo(verified.email, 'confirm')) });
    await mailTo(unverified.email, 'confirm');
    await h.app.auth.mailer.idle();
    const from = smtp.received.length;
    const answers = [];
    for (const e of [unverified.email, verified.email, email()]) {
      const r = await post('/email/verify/resend', { email: e });
      answers.push([r.statusCode, r.body, r.headers['content-type']]);
    }
    assert.deepEqual(answers[1], answers[0]);
    assert.deepEqual(answers[2], answers[0]);
    assert.equal(answers[0][0], 202);
    const token = tokenOf(await mailTo(unverified.email, 'confirm', from));
    await h.app.auth.mailer.idle();
    assert.deepEqual(
      smtp.received.slice(from).map((m) => m.envelopeTo[0]),
      [unverified.email],
    );
    assert.equal((await post('/email/verify', { token })).statusCode, 200);
    // AUTH_RATE_EMAIL_PER_ADDRESS = 3 (one used above).
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await post('/email/verify/resend', { email: unverified.email })).statusCode);
    assert.deepEqual(codes, [202, 202, 429]);
  });

  it('email change: password checked, new address confirmed before it counts, old address told; login moves to it', async () => {
    const u = await register(h.app);
    // A verified old address is told the new address (an unverified one is not: mail-requester-text.test.ts).
    assert.equal((await post('/email/verify', { token: tokenOf(await mailTo(u.email, 'confirm')) })).statusCode, 200);
    const next = email();
    const wrong = await post('/account/email', { email: next, password: 'not the password' }, bearer(u.access_token));
    assert.deepEqual([wrong.statusCode, wrong.json().code], [401, 'invalid_credentials']);
    const same = await post('/account/email', { email: u.email.toUpperCase(), password: u.password }, bearer(u.access_token));
    assert.deepEqual([same.statusCode, same.json().code], [409, 'email_unchanged']);
    // An address with an account answers like any other (enumeration.test.ts).
    const noToken = await post('/account/email', { email: next, password: u.password });
    assert.deepEqual([noToken.statusCode, noToken.json().code], [401, 'unauthenticated']);

    const from = smtp.received.length;
    const r = await post('/account/email', { email: next.toUpperCase(), password: u.password }, bearer(u.access_token));
    assert.equal(r.statusCode, 202, r.body);
    assert.deepEqual(r.json(), { pending_email: next });
    const notice = await mailTo(u.email, 'your email address is changing', from);
    assert.match(notice.text, new RegExp(next.replace(/[.]/g, '\\.')));
    const token = tokenOf(await mailTo(next, 'confirm', from));
    // Not switched yet.
    assert.equal((await account(u.access_token)).identities[0].provider_user_id, u.email);
    // The export shows the pending address, never a token or its hash.
    const exported = (await h.app.inject({ method: 'POST', url: '/account/export', headers: bearer(u.access_token) })).json();
    assert.ok(exported.email_tokens.some((t: { purpose: string; email: string }) => t.purpose === 'email_change' && t.email === next));
    assert.ok(!JSON.stringify(exported.email_tokens).includes(token) && !/token_hash/.test(JSON.stringify(exported)));
    assert.equal((await post('/login', { email: u.email, password: u.password })).statusCode, 200);

    const done = await post('/email/verify', { token });
    assert.equal(done.statusCode, 200, done.body);
    assert.deepEqual(done.json(), { email: next, verified: true, changed: true });
    const id = (await account(u.access_token)).identities[0];
    assert.deepEqual([id.provider_user_id, id.verified], [next, true]);
    assert.equal((await post('/login', { email: u.email, password: u.password })).statusCode, 401);
    assert.equal((await post('/login', { email: next, password: u.password })).statusCode, 200);
    // The old address is free again.
    assert.equal((await post('/register', { email: u.email, password: GOOD_PASSWORD })).statusCode, 201);
    const audits = await h.tdb.db.query<{ event: string; detail: { outcome?: string } }>(`SELECT event, detail FROM audit_log WHERE account_id = $1 AND event IN ('email_change', 'email_verified') ORDER BY at`, [u.account_id]);
    assert.deepEqual(
      audits.rows.map((a) => `${a.event}:${a.detail.outcome ?? ''}`),
      ['email_verified:', 'email_change:failure', 'email_change:requested', 'email_verified:'],
    );
  });

  it('email change confirmed after another account took the address → 409 email_taken; a guest has no email to change (403 guest_restricted)', async () => {
    const u = await register(h.app);
    const next = email();
    const from = smtp.received.length;
    assert.equal((await post('/account/email', { email: next, password: u.password }, bearer(u.access_token))).statusCode, 202);
    const token = tokenOf(await mailTo(next, 'confirm', from));
    await register(h.app, next);
    const r = await post('/email/verify', { token });
    assert.deepEqual([r.statusCode, r.json().code], [409, 'email_taken']);
    assert.equal((await account(u.access_token)).identities[0].provider_user_id, u.email);

    const g = await guest(h.app);
    const none = await post('/account/email', { email: email(), password: GOOD_PASSWORD }, bearer(g.access_token));
    // A guest is told what upgrading unlocks (docs/auth.md, "Guests"; guest-safety.test.ts).
    assert.deepEqual([none.statusCode, none.json().code, none.json().feature], [403, 'guest_restricted', 'change_email']);
  });

  it('wrong passwords on an email change count toward the source lockout (423 after the threshold)', async () => {
    const u = await register(h.app);
    const change = (password: string) => post('/account/email', { email: email(), password }, bearer(u.access_token), '10.71.0.1');
    for (let i = 0; i < h.config.lockoutThreshold; i++) assert.equal((await change(`wrong guess ${i}`)).statusCode, 401);
    const locked = await change(u.password);
    assert.deepEqual([locked.statusCode, locked.json().code], [423, 'account_locked']);
    assert.ok(Number(locked.headers['retry-after']) > 0);
    // Another source is not locked out: the owner changes the address from there.
    assert.equal((await post('/account/email', { email: email(), password: u.password }, bearer(u.access_token), '10.71.0.2')).statusCode, 202);
  });
});
