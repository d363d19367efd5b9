// An SMTP server (real, started here) that refuses the login: the request answers at once; the mail is retried,
// then given up in the log, which names neither the address, the token nor the SMTP password.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { captureLogs } from '@platform/kit/testing';
import { email, GOOD_PASSWORD, harness, type Harness } from './support/harness.js';
import { startSmtpServer } from './support/smtp.js';

describe('mail delivery: SMTP failures', () => {
  const open: Harness[] = [];
  after(async () => {
    for (const h of open) await h.close();
  });

  it('an SMTP server that refuses the login: the request answers at once; the mail is retried, then given up in the log', async () => {
    const smtp = await startSmtpServer({ user: 'mailer', pass: 'right-pass' });
    const logs = captureLogs();
    const h = await harness({ AUTH_SMTP_URL: smtp.url.replace('right-pass', 'wrong-pass'), LOG_LEVEL: 'info' }, { logStream: logs.stream });
    open.push(h);
    try {
      const e = email();
      const r = await h.app.inject({ method: 'POST', url: '/register', payload: { email: e, password: GOOD_PASSWORD } });
      assert.equal(r.statusCode, 201);
      await h.app.auth.mailer.idle();
      const warnings = logs.lines().filter((l) => l.template === 'verify_email');
      assert.deepEqual(
        warnings.map((l) => l.msg),
        ['mail not delivered; will retry', 'mail not delivered; will retry', 'mail not delivered; given up'],
      );
      assert.equal(smtp.received.length, 0);
      assert.ok(!logs.text().includes(e) && !logs.text().includes('wrong-pass'), 'no address, no SMTP password in the log');
    } finally {
      await smtp.close();
    }
  });

});
