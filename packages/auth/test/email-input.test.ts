// Bad input on every email-flow endpoint: a clear 4xx with a stable code, never a 5xx, and nothing mailed.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, register, useHarness } from './support/harness.js';

describe('email flows: bad input', () => {
  const h = useHarness({ AUTH_RATE_EMAIL_PER_IP: '100000', AUTH_RATE_EMAIL_PER_ADDRESS: '100000' });
  let token: string;
  let password: string;
  before(async () => {
    const u = await register(h.app);
    token = u.access_token;
    password = u.password;
  });

  const endpoints = ['/password/reset-request', '/password/reset', '/email/verify', '/email/verify/resend', '/account/email'];
  const send = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    h.app.inject({ method: 'POST', url, headers: { ...bearer(token), ...headers }, payload: payload as string });
  const expect = async (url: string, payload: unknown, status: number, code: string, headers: Record<string, string> = {}) => {
    const r = await send(url, payload, headers);
    assert.equal(r.statusCode, status, `${url} ${JSON.stringify(payload)?.slice(0, 80)}: ${r.body}`);
    assert.equal(r.json().code, code, url);
    return r.json();
  };

  it('malformed JSON, non-JSON, oversized, deep nesting, arrays, missing body', async () => {
    for (const url of endpoints) {
      await expect(url, '{"email":', 400, 'malformed_json', { 'content-type': 'application/json' });
      await expect(url, '<a/>', 415, 'unsupported_media_type', { 'content-type': 'text/xml' });
      await expect(url, { email: 'a@b.test', x: 'y'.repeat(70_000) }, 413, 'payload_too_large');
      await expect(url, `{"email":${'['.repeat(6000)}${']'.repeat(6000)}}`, 400, 'too_deep', { 'content-type': 'application/json' });
      await expect(url, [1, 2], 400, 'validation_failed');
      await expect(url, undefined, 400, 'validation_failed');
      await expect(url, 'null', 400, 'validation_failed', { 'content-type': 'application/json' });
    }
  });

  it('missing, unknown and wrongly typed fields name the field', async () => {
    const valid: Record<string, Record<string, unknown>> = {
      '/password/reset-request': { email: 'someone@example.test' },
      '/password/reset': { token: 'x'.repeat(43), password: 'a long enough password' },
      '/email/verify': { token: 'x'.repeat(43) },
      '/email/verify/resend': { email: 'someone@example.test' },
      '/account/email': { email: 'someone@example.test', password },
    };
    for (const [url, body] of Object.entries(valid)) {
      assert.equal((await expect(url, { ...body, surprise: 1 }, 400, 'validation_failed')).field, 'surprise', url);
      for (const field of Object.keys(body)) {
        const { [field]: _, ...rest } = body;
        assert.equal((await expect(url, rest, 400, 'validation_failed')).field, field, `${url} without ${field}`);
        for (const wrong of [42, true, null, { a: 1 }, ['x'], '']) {
          await expect(url, { ...body, [field]: wrong }, 400, 'validation_failed');
        }
      }
    }
  });

  it('bad emails, overlong values, NUL and unpaired surrogates', async () => {
    for (const url of ['/password/reset-request', '/email/verify/resend', '/account/email']) {
      const extra = url === '/account/email' ? { password } : {};
      for (const bad of ['not-an-email', '@example.test', 'a@', `${'a'.repeat(250)}@example.test`]) {
        assert.equal((await expect(url, { email: bad, ...extra }, 400, 'validation_failed')).field, 'email', `${url} ${bad}`);
      }
      const nul = await send(url, { email: 'nul\u0000@example.test', ...extra });
      assert.equal(nul.statusCode, 400, nul.body);
      assert.ok(['invalid_character', 'validation_failed'].includes(nul.json().code));
      const lone = await send(url, { email: 'lone\udfff@example.test', ...extra });
      assert.equal(lone.statusCode, 400, lone.body);
    }
    for (const url of ['/password/reset', '/email/verify']) {
      const extra = url === '/password/reset' ? { password: 'a long enough password' } : {};
      await expect(url, { token: 't'.repeat(257), ...extra }, 400, 'validation_failed');
      assert.deepEqual(
        [await expect(url, { token: 'abc\u0000def', ...extra }, 400, 'invalid_character')].map((b) => b.field),
        ['token'],
      );
      await expect(url, { token: '\udfff'.repeat(43), ...extra }, 400, 'invalid_character');
    }
    await expect('/password/reset', { token: 'x'.repeat(43), password: 'p'.repeat(1025) }, 400, 'validation_failed');
    await expect('/password/reset', { token: 'x'.repeat(43), password: 'pass\u0000word is long' }, 400, 'invalid_character');
  });

  it('/account/email without a token, with a bad one, with a revoked one → 401', async () => {
    const body = { email: 'someone-new@example.test', password };
    const none = await h.app.inject({ method: 'POST', url: '/account/email', payload: body });
    assert.deepEqual([none.statusCode, none.json().code], [401, 'unauthenticated']);
    const bad = await h.app.inject({ method: 'POST', url: '/account/email', payload: body, headers: { authorization: 'Bearer v4.public.AAAA.BBBB' } });
    assert.deepEqual([bad.statusCode, bad.json().code], [401, 'invalid_token']);
    const u = await register(h.app);
    await h.app.inject({ method: 'POST', url: '/logout', headers: bearer(u.access_token) });
    const revoked = await h.app.inject({ method: 'POST', url: '/account/email', payload: { ...body, password: u.password }, headers: bearer(u.access_token) });
    assert.deepEqual([revoked.statusCode, revoked.json().code], [401, 'invalid_token']);
  });

  it('nothing was mailed or stored by any of it', async () => {
    await h.app.auth.mailer.idle();
    const rows = await h.tdb.db.query(`SELECT purpose, count(*)::int AS n FROM email_tokens GROUP BY purpose ORDER BY purpose`);
    // Only the sign-ups' verification tokens.
    assert.deepEqual(rows.rows, [{ purpose: 'verify_email', n: 2 }]);
  });

  it('the link pages: HTML with a strict CSP and no inline script; the script reads the fragment', async () => {
    for (const page of ['reset-password', 'verify-email']) {
      const r = await h.app.inject({ method: 'GET', url: `/email-link/${page}` });
      assert.equal(r.statusCode, 200);
      assert.match(r.headers['content-type'] as string, /^text\/html/);
      assert.match(r.headers['content-security-policy'] as string, /script-src 'self'/);
      assert.equal(r.headers['referrer-policy'], 'no-referrer');
      assert.doesNotMatch(r.body, /<script>(?!<)/);
      assert.match(r.body, /<script type="module" src="page.js"><\/script>/);
    }
    const js = await h.app.inject({ method: 'GET', url: '/email-link/page.js' });
    assert.match(js.headers['content-type'] as string, /^text\/javascript/);
    assert.match(js.body, /location\.hash/);
    assert.equal((await h.app.inject({ method: 'GET', url: '/email-link/other' })).statusCode, 404);
  });
});
