// Every page auth serves to a browser (the mailed links' pages, the device page, the API docs) is never framed, sends
// no referrer and is nosniff; so is its script (issue 25, item 13; the rule is the kit's: docs/decisions/0006-security-headers.md).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness } from './support/harness.js';

describe('auth page headers', () => {
  const h = useHarness();

  it('email-link pages, the device page and /docs: X-Frame-Options DENY, frame-ancestors none, no referrer, nosniff', async () => {
    for (const url of ['/email-link/reset-password', '/email-link/verify-email', '/device', '/docs/']) {
      const r = await h.app.inject({ url });
      assert.equal(r.statusCode, 200, url);
      assert.match(String(r.headers['content-type']), /^text\/html/, url);
      assert.equal(r.headers['x-frame-options'], 'DENY', url);
      assert.match(String(r.headers['content-security-policy']), /frame-ancestors 'none'/, url);
      assert.equal(r.headers['x-content-type-options'], 'nosniff', url);
      assert.equal(r.headers['referrer-policy'], 'no-referrer', url);
    }
    const script = await h.app.inject({ url: '/email-link/page.js' });
    assert.equal(script.headers['x-content-type-options'], 'nosniff');
  });
});
