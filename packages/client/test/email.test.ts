/** The SDK's email flows against the real auth service: mail read from its local mailbox directory (no SMTP). */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PASSWORD, rejects, startTestPlatform, uniqueEmail, type TestPlatform } from './support.js';

/** The mail's text as written: quoted-printable soft breaks joined, =XX decoded (ASCII mail). */
const quotedPrintable = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

describe('client: password reset, email verification, email change', () => {
  let tp: TestPlatform;
  const mailbox = path.join(mkdtempSync(path.join(tmpdir(), 'client-mailbox-')), 'mailbox');
  before(async () => {
    tp = await startTestPlatform({ authEnv: { AUTH_MAILBOX_DIR: mailbox, AUTH_RATE_EMAIL_PER_IP: '10000', AUTH_RATE_EMAIL_PER_ADDRESS: '10000' } });
  });
  after(async () => {
    await tp.close();
  });

  /** The code of the newest mail of `template` sent to `to` (files are named by time). */
  const codeFor = async (to: string, template: string): Promise<string> => {
    await tp.platform.auth.app.auth.mailer.idle();
    const files = readdirSync(mailbox).filter((f) => f.includes(`-${template}-`)).sort().reverse();
    for (const f of files) {
      const raw = quotedPrintable(readFileSync(path.join(mailbox, f), 'utf8'));
      if (!raw.includes(`To: ${to}`)) continue;
      const code = /^(?:reset|verification) code: (\S+)$/m.exec(raw)?.[1];
      if (code) return code;
    }
    throw new Error(`no ${template} mail to ${to}`);
  };

  it('register → verifyEmail; the account shows the email verified; a code works once', async () => {
    const email = uniqueEmail('verify');
    const c = tp.client();
    const reg = await c.auth.register({ email, password: PASSWORD });
    assert.equal(reg.emailVerificationRequired, false);
    assert.equal((await c.auth.account()).identities[0].verified, false);
    const code = await codeFor(email, 'verify_email');
    assert.deepEqual(await c.auth.verifyEmail(code), { email, verified: true, changed: false });
    assert.equal((await c.auth.account()).identities[0].verified, true);
    await rejects(c.auth.verifyEmail(code), 410, 'email_token_used');
    await rejects(c.auth.verifyEmail('not-a-code'), 400, 'invalid_email_token');
    // Already verified, or unknown: resolves all the same, nothing mailed.
    await c.auth.resendVerification(email);
    await c.auth.resendVerification(uniqueEmail('nobody'));
  });

  it('requestPasswordReset → resetPassword: the signed-in client is signed out, the new password signs in', async () => {
    const email = uniqueEmail('reset');
    const c = tp.client();
    await c.auth.register({ email, password: PASSWORD });
    await c.auth.requestPasswordReset(email);
    await tp.client().auth.requestPasswordReset(uniqueEmail('nobody')); // resolves alike
    const code = await codeFor(email, 'password_reset');
    const other = tp.client();
    await rejects(other.auth.resetPassword({ token: code, password: 'short' }), 400, 'weak_password');
    assert.deepEqual(await other.auth.resetPassword({ token: code, password: 'the new long passphrase' }), { sessions_revoked: 1 });
    await rejects(other.auth.resetPassword({ token: code, password: 'the new long passphrase' }), 410, 'email_token_used');
    // The first client's session ended on the service: its calls fail and it is signed out.
    await assert.rejects(c.auth.account(), (e: { status: number }) => e.status === 401);
    assert.equal(await c.session.isSignedIn(), false);
    await rejects(tp.client().auth.signInWithEmail({ email, password: PASSWORD }), 401, 'invalid_credentials');
    await tp.client().auth.signInWithEmail({ email, password: 'the new long passphrase' });
  });

  it('a guest upgrades with link and confirms in the game: verifyEmail sends the session, which goes on (no claim)', async () => {
    const email = uniqueEmail('upgrade');
    const c = tp.client();
    await c.auth.signInAsGuest();
    await c.auth.link({ email, password: PASSWORD });
    const code = await codeFor(email, 'verify_email');
    assert.deepEqual(await c.auth.verifyEmail(code), { email, verified: true, changed: false });
    const account = await c.auth.account();
    assert.deepEqual(account.identities.map((i) => i.provider).sort(), ['email', 'guest']);
    assert.ok(account.identities.find((i) => i.provider === 'email')?.verified);
  });

  it('changeEmail (with the password) → verifyEmail switches the address', async () => {
    const email = uniqueEmail('change');
    const next = uniqueEmail('changed');
    const c = tp.client();
    await c.auth.register({ email, password: PASSWORD });
    await rejects(c.auth.changeEmail({ email: next, password: 'not the passphrase' }), 401, 'invalid_credentials');
    assert.deepEqual(await c.auth.changeEmail({ email: next, password: PASSWORD }), { pending_email: next });
    const code = await codeFor(next, 'email_change');
    assert.deepEqual(await c.auth.verifyEmail(code), { email: next, verified: true, changed: true });
    const again = tp.client();
    await again.auth.signInWithEmail({ email: next, password: PASSWORD });
    assert.equal((await again.auth.account()).identities[0].provider_user_id, next);
  });
});

describe('client: register when the service requires a verified email', () => {
  let tp: TestPlatform;
  const mailbox = path.join(mkdtempSync(path.join(tmpdir(), 'client-mailbox-')), 'mailbox');
  before(async () => {
    tp = await startTestPlatform({ authEnv: { AUTH_MAILBOX_DIR: mailbox, AUTH_EMAIL_VERIFICATION: 'required' } });
  });
  after(async () => {
    await tp.close();
  });

  it('register resolves without a session; sign-in is refused until verifyEmail', async () => {
    const email = uniqueEmail('required');
    const c = tp.client();
    const reg = await c.auth.register({ email, password: PASSWORD });
    assert.equal(reg.emailVerificationRequired, true);
    assert.ok(reg.accountId);
    assert.equal(await c.session.isSignedIn(), false);
    // The account is written just after the answer (the same answer for every address: docs/auth.md, "Enumeration"),
    // then its mail: once the mail is there, sign-in names the unverified address.
    let file: string | undefined;
    for (let i = 0; i < 200 && !file; i++) {
      await tp.platform.auth.app.auth.mailer.idle();
      file = readdirSync(mailbox).find((f) => f.includes('-verify_email-'));
      if (!file) await new Promise((r) => setTimeout(r, 25));
    }
    assert.ok(file, 'the verification mail was written');
    await rejects(c.auth.signInWithEmail({ email, password: PASSWORD }), 403, 'email_not_verified');
    const code = /^verification code: (\S+)$/m.exec(quotedPrintable(readFileSync(path.join(mailbox, file), 'utf8')))![1];
    await c.auth.verifyEmail(code);
    assert.equal((await c.auth.signInWithEmail({ email, password: PASSWORD })).accountId, reg.accountId);
  });
});
