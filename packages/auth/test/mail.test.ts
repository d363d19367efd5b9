// Mail delivery: the local mailbox directory (no AUTH_SMTP_URL: one .eml per message, the log says where), escaping
// of player-chosen text, and the settings' bounds. SMTP refusing the login: mail-smtp-failure.test.ts.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { captureLogs } from '@platform/kit/testing';
import { readAuthConfig } from '../src/config.js';
import { email, GOOD_PASSWORD, harness, type Harness } from './support/harness.js';

describe('mail delivery', () => {
  const open: Harness[] = [];
  after(async () => {
    for (const h of open) await h.close();
  });

  it('without AUTH_SMTP_URL each message is a .eml file (0600) in the mailbox directory, and the log says where', async () => {
    const mailbox = path.join(mkdtempSync(path.join(tmpdir(), 'auth-mailbox-')), 'mailbox');
    const logs = captureLogs();
    const h = await harness({ AUTH_MAILBOX_DIR: mailbox, LOG_LEVEL: 'info' }, { logStream: logs.stream });
    open.push(h);
    assert.equal(h.app.auth.mailer.mode, 'mailbox');
    assert.ok(logs.text().includes(`each message is written to ${mailbox}`), 'the start log names the mailbox');

    const e = email();
    const signUp = await h.app.inject({ method: 'POST', url: '/register', payload: { email: e, password: GOOD_PASSWORD, display_name: '<img src=x onerror=alert(1)>' } });
    assert.equal(signUp.statusCode, 201);
    const u = { email: e };
    await h.app.auth.mailer.idle();
    assert.equal((await h.app.inject({ method: 'POST', url: '/password/reset-request', payload: { email: u.email } })).statusCode, 202);
    await h.app.auth.mailer.idle();
    const files = readdirSync(mailbox).sort();
    assert.equal(files.length, 2, files.join());
    assert.match(files[0], /^\d{4}-\d\d-\d\dT[\d-]+Z-verify_email-[0-9a-f]{6}\.eml$/);
    assert.match(files[1], /-password_reset-[0-9a-f]{6}\.eml$/);
    assert.equal(statSync(mailbox).mode & 0o777, 0o700);
    assert.equal(statSync(path.join(mailbox, files[1])).mode & 0o777, 0o600);

    // A whole RFC 5322 message, as SMTP would have carried it (its text part quoted-printable).
    const raw = readFileSync(path.join(mailbox, files[1]), 'utf8');
    const parsed = await simpleParser(raw);
    const token = /^reset code: ([A-Za-z0-9_-]{43})$/m.exec(parsed.text ?? '')?.[1];
    assert.ok(token, raw);
    assert.equal(parsed.subject, 'Game Platform: reset your password');
    // The address is not verified: the mail carries no display name (escaping: mail-requester-text.test.ts).
    const verify = await simpleParser(readFileSync(path.join(mailbox, files[0]), 'utf8'));
    assert.ok(String(verify.html).includes('Hello,'), String(verify.html));
    assert.ok(!String(verify.html).includes('img'));
    assert.equal((parsed.to as { value: { address: string }[] }).value[0].address, u.email);
    assert.equal(parsed.from?.value[0].address, 'no-reply@localhost');
    assert.ok(parsed.text?.includes(`https://localhost:8443/email-link/reset-password#token=${token}`));
    assert.equal((await h.app.inject({ method: 'POST', url: '/password/reset', payload: { token, password: 'the new long passphrase' } })).statusCode, 200);
    await h.app.auth.mailer.idle();
    assert.ok(readdirSync(mailbox).some((f) => f.includes('-password_changed-')));
    assert.ok(logs.lines().some((l) => l.msg?.startsWith(`mail written to ${mailbox}`) && l.template === 'password_reset'));
    const text = logs.text();
    assert.ok(!text.includes(token) && !text.includes(u.email), 'no token, no address in the log');
  });

  it('settings: defaults, bounds, and only smtp:// or smtps:// URLs', () => {
    const base = { DATA_DIR: '/tmp/platform-data' };
    const c = readAuthConfig(base);
    assert.equal(c.mailbox, path.resolve('/tmp/platform-data/auth/mailbox'));
    assert.equal(c.linkBase, 'https://localhost:8443');
    assert.equal(c.passwordResetTtlMinutes, 30);
    assert.equal(c.emailVerifyTtlHours, 48);
    assert.equal(c.emailVerification, 'optional');
    assert.equal(readAuthConfig({ ...base, AUTH_PUBLIC_URL: 'https://play.example.com/auth/' }).linkBase, 'https://play.example.com/auth');
    for (const bad of [
      { AUTH_SMTP_URL: 'http://mail.example.com' },
      { AUTH_PASSWORD_RESET_TTL_MINUTES: '2' },
      { AUTH_PASSWORD_RESET_TTL_MINUTES: '1441' },
      { AUTH_EMAIL_VERIFY_TTL_HOURS: '0' },
      { AUTH_EMAIL_VERIFICATION: 'sometimes' },
    ]) {
      assert.throws(() => readAuthConfig({ ...base, ...bad }), /AUTH_/, JSON.stringify(bad));
    }
    assert.equal(readAuthConfig({ ...base, AUTH_SMTP_URL: 'smtps://u:p@mail.example.com:465' }).smtpUrl, 'smtps://u:p@mail.example.com:465');
  });
});
