// Issue 25, item 7: a mail to an address that is not verified carries no text chosen by whoever asked for it
// (display name, the new address of a change): anyone may sign up with anyone's address. The mails are read as
// delivered, from the mailbox directory (one RFC 5322 .eml per message).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { bearer, email, GOOD_PASSWORD, harness, type Harness } from './support/harness.js';

const PHISHING_NAME = '<b>Security</b>: verify at https://evil.example';

describe('mails to unverified addresses carry no requester-chosen text', () => {
  let h: Harness;
  let mailbox: string;
  let ip = 0;
  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    h.app.inject({ method: 'POST', url, payload: payload as object, headers, remoteAddress: `10.91.0.${++ip}` });

  /** Every delivered mail of `template` to `to`, in order, as text and HTML. */
  async function mails(to: string, template: string) {
    await h.app.auth.mailer.idle();
    const out: { text: string; html: string }[] = [];
    for (const f of readdirSync(mailbox).sort()) {
      if (!f.includes(`-${template}-`)) continue;
      const m = await simpleParser(readFileSync(path.join(mailbox, f), 'utf8'));
      if ((m.to as { value: { address: string }[] }).value[0].address !== to) continue;
      out.push({ text: m.text ?? '', html: String(m.html) });
    }
    return out;
  }
  const last = async (to: string, template: string) => {
    const all = await mails(to, template);
    assert.ok(all.length, `a ${template} mail to ${to}`);
    return all[all.length - 1];
  };
  const assertNoName = (m: { text: string; html: string }) => {
    for (const part of [m.text, m.html]) {
      assert.ok(!part.includes('evil.example') && !part.includes('Security'), part);
      assert.ok(part.includes('Hello,'), part);
    }
  };
  const tokenIn = (m: { text: string }) => /code: ([A-Za-z0-9_-]{43})$/m.exec(m.text)![1];

  before(async () => {
    mailbox = path.join(mkdtempSync(path.join(tmpdir(), 'auth-mailbox-')), 'mailbox');
    h = await harness({ AUTH_MAILBOX_DIR: mailbox, AUTH_RATE_EMAIL_PER_IP: '1000' });
  });
  after(async () => {
    await h.close();
  });

  it('sign-up: the verification and reset mails to the unproven address carry no display name; once verified the reset greets by name, escaped', async () => {
    const e = email();
    const signUp = await post('/register', { email: e, password: GOOD_PASSWORD, display_name: PHISHING_NAME });
    assert.equal(signUp.statusCode, 201, signUp.body);
    const verify = await last(e, 'verify_email');
    assertNoName(verify);
    assert.equal((await post('/password/reset-request', { email: e })).statusCode, 202);
    assertNoName(await last(e, 'password_reset'));

    assert.equal((await post('/email/verify', { token: tokenIn(verify) })).statusCode, 200);
    assert.equal((await post('/password/reset-request', { email: e })).statusCode, 202);
    const greeted = await last(e, 'password_reset');
    assert.ok(greeted.text.includes(`Hello ${PHISHING_NAME},`), greeted.text);
    assert.ok(greeted.html.includes('Hello &lt;b&gt;Security&lt;/b&gt;: verify at https://evil.example,'), greeted.html);
    assert.ok(!greeted.html.includes('<b>Security'));
  });

  it('a guest named by the attacker links an address, and an email change: neither the name nor the requested address reach an unproven mailbox', async () => {
    const g = (await post('/guest', { device_fingerprint: `fp-${Date.now()}-mail` })).json();
    assert.equal((await h.app.inject({ method: 'PATCH', url: '/account', headers: bearer(g.access_token), payload: { display_name: 'Security' } })).statusCode, 200);
    const victim = email();
    assert.equal((await post('/account/link', { email: victim, password: GOOD_PASSWORD }, bearer(g.access_token))).statusCode, 200);
    assertNoName(await last(victim, 'verify_email'));

    // The account's own address is unverified: the notice of a change does not name the requested address.
    const next = `asked-by-requester-${ip}@example.test`;
    const change = await post('/account/email', { email: next, password: GOOD_PASSWORD }, bearer(g.access_token));
    assert.equal(change.statusCode, 202, change.body);
    assertNoName(await last(next, 'email_change'));
    const notice = await last(victim, 'email_change_notice');
    assert.ok(!notice.text.includes(next) && !notice.text.includes('Security'), notice.text);
  });
});
