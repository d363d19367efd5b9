// AUTH_EMAIL_VERIFICATION=required: sign-up without a session, sign-in refused until the email is verified (or a
// password reset proved the mailbox); mails through a real SMTP server started here.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { email, GOOD_PASSWORD, useMailHarness } from './support/harness.js';
import { tokenOf, type ReceivedMail } from './support/smtp.js';

let ip = 0;
const nextIp = () => `10.72.${Math.floor(++ip / 250)}.${ip % 250}`;

describe('AUTH_EMAIL_VERIFICATION=required', () => {
  const { h, smtp } = useMailHarness({ AUTH_EMAIL_VERIFICATION: 'required' });
  const post = (url: string, payload: unknown) => h.app.inject({ method: 'POST', url, payload: payload as object, remoteAddress: nextIp() });
  const mailTo = (to: string, subject: string) => smtp.waitFor((m: ReceivedMail) => m.envelopeTo.includes(to) && m.subject.includes(subject));

  it('sign-up answers 202 without tokens; login 403 email_not_verified (only after the right password) until verified', async () => {
    const e = email();
    const r = await post('/register', { email: e, password: GOOD_PASSWORD });
    assert.equal(r.statusCode, 202, r.body);
    assert.deepEqual(Object.keys(r.json()).sort(), ['account_id', 'email_verification_required']);
    // The account is written once the answer is sent (the same answer for every address: enumeration.test.ts).
    await h.app.auth.mailer.idle();
    const sessions = await h.tdb.db.query(`SELECT count(*)::int AS n FROM sessions WHERE account_id = $1`, [r.json().account_id]);
    assert.equal(sessions.rows[0].n, 0);
    const wrong = await post('/login', { email: e, password: 'not the password' });
    assert.deepEqual([wrong.statusCode, wrong.json().code], [401, 'invalid_credentials']);
    const early = await post('/login', { email: e, password: GOOD_PASSWORD });
    assert.deepEqual([early.statusCode, early.json().code], [403, 'email_not_verified']);
    assert.equal((await post('/email/verify', { token: tokenOf(await mailTo(e, 'confirm')) })).statusCode, 200);
    const l = await post('/login', { email: e, password: GOOD_PASSWORD });
    assert.equal(l.statusCode, 200);
  });

  it('a password reset verifies the address (the mail reached it): the player signs in after it', async () => {
    const e = email();
    assert.equal((await post('/register', { email: e, password: GOOD_PASSWORD })).statusCode, 202);
    await h.app.auth.mailer.idle();
    assert.equal((await post('/password/reset-request', { email: e })).statusCode, 202);
    const token = tokenOf(await mailTo(e, 'reset your password'));
    assert.equal((await post('/password/reset', { token, password: 'a fresh and long passphrase' })).statusCode, 200);
    assert.equal((await post('/login', { email: e, password: 'a fresh and long passphrase' })).statusCode, 200);
  });
});
