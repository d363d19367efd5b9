// Open sockets are capped per user and per remote address (per node), refused at the upgrade with 4429.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness } from '../support.js';
import { accepted, BROWSER, connect, listen, refused, type Client } from './support.js';

describe('realtime: socket caps', () => {
  const h = useHarness({ SOCIAL__REALTIME__MAXSOCKETSPERUSER: '3', SOCIAL__REALTIME__MAXSOCKETSPERADDRESS: '5' });
  let url: { ws: string; http: string };
  before(async () => {
    url = await listen(h.app);
  });

  it('refuses a user past the cap until one of their sockets closes; then the address cap applies to everyone', async () => {
    const a = await h.user('Capped');
    const open: Client[] = [];
    for (let i = 0; i < 3; i++) open.push(await connect(url.ws, a.token));
    // 429 with Retry-After for a client without Origin; in band (4429, retryAfterSeconds) for a browser.
    assert.equal((await refused(connect(url.ws, a.token), 429, 'too_many_sockets')).retryAfterSeconds, 5);
    assert.equal((await refused(connect(url.ws, a.token, { headers: BROWSER }), 429, 'too_many_sockets')).retryAfterSeconds, 5);
    await open.shift()!.close();
    // The close reaches the server at once; the next upgrade is accepted.
    let again: Client | undefined;
    for (let i = 0; i < 50 && !again; i++) {
      again = await accepted(url.ws, a.token);
      if (!again) await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(again, 'a socket is accepted once one closed');
    open.push(again);
    // Address cap (5): three of a's sockets and two of b's fill it; anyone else from this address is refused.
    const b = await h.user('Neighbour');
    open.push(await connect(url.ws, b.token), await connect(url.ws, b.token));
    const c = await h.user('Third');
    await refused(connect(url.ws, c.token), 429, 'too_many_sockets');
    for (const s of open) await s.close();
  });
});
