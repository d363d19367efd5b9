// Signing keys: one key for all nodes, encrypted at rest, three-step rotation, emergency rotation, readiness.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { tokenKid } from '@platform/kit';
import { useHarness, guest, register, bearer, assertError } from './support/harness.js';
import { advanceRotation, rotateSigningKey } from '../src/services/keys.js';

describe('signing keys', () => {
  const h = useHarness();

  const jwks = async () => (await h.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json().keys.map((k: { kid: string }) => k.kid) as string[];
  const timings = { propagationSeconds: 900, retireAfterSeconds: 660 };
  const ctx = { nodeId: 'test', ip: null };

  it('nodes started together share one active key; the private key is encrypted with aad = kid', async () => {
    const [b, c] = await Promise.all([h.node(), h.node()]);
    const rows = (await h.tdb.db.query(`SELECT kid, state, private_key_enc FROM signing_keys`)).rows;
    assert.equal(rows.filter((r) => r.state === 'active').length, 1);
    assert.match(rows[0].private_key_enc, /^v1\./);
    assert.equal(b.auth.keys.signingKey().kid, h.app.auth.keys.signingKey().kid);
    assert.equal(c.auth.keys.signingKey().kid, rows[0].kid);
  });

  it('rotates in three steps: publish, activate after the propagation wait, retire after the token lifetime', async () => {
    const old = h.app.auth.keys.signingKey().kid;
    const r = await rotateSigningKey(h.tdb.db, h.config.masterKey!, timings, ctx);
    assert.equal(r.state, 'published');
    await h.app.auth.refreshKeys();
    assert.deepEqual((await jwks()).sort(), [old, r.kid].sort(), 'both served');
    assert.equal(h.app.auth.keys.signingKey().kid, old, 'still signing with the old key');
    assert.equal(await advanceRotation(h.tdb.db, timings, ctx), false, 'nothing due yet');

    // The propagation wait elapses.
    await h.tdb.db.query(`UPDATE signing_keys SET activate_at = now() - interval '1 second' WHERE kid = $1`, [r.kid]);
    const before = await guest(h.app);
    await h.app.auth.refreshKeys();
    assert.equal(h.app.auth.keys.signingKey().kid, r.kid);
    const g = await guest(h.app);
    assert.equal(tokenKid(g.access_token).kid, r.kid);
    assert.deepEqual((await jwks()).sort(), [old, r.kid].sort(), 'old key still verifiable');
    assert.equal((await h.app.inject({ method: 'GET', url: '/account', headers: bearer(before.access_token) })).statusCode, 200);

    // The maximum access-token lifetime elapses.
    const row = (await h.tdb.db.query(`SELECT state, retire_at FROM signing_keys WHERE kid = $1`, [old])).rows[0];
    assert.equal(row.state, 'published');
    await h.tdb.db.query(`UPDATE signing_keys SET retire_at = now() - interval '1 second' WHERE kid = $1`, [old]);
    await h.app.auth.refreshKeys();
    assert.deepEqual(await jwks(), [r.kid]);
    assert.equal((await h.app.inject({ method: 'GET', url: '/account', headers: bearer(before.access_token) })).statusCode, 401);
    const steps = (await h.tdb.db.query(`SELECT detail->>'step' AS step FROM audit_log WHERE event = 'key_rotation' ORDER BY at`)).rows.map((x) => x.step);
    assert.deepEqual(steps.slice(-3), ['publish', 'activate', 'retire']);
    // Idempotent: running the tick again changes nothing.
    assert.equal(await advanceRotation(h.tdb.db, timings, ctx), false);
  });

  it('POST /admin/keys/rotate needs the admin role; emergency activates at once and notifies other nodes', async () => {
    const other = await h.node();
    const player = await register(h.app);
    assertError(await h.app.inject({ method: 'POST', url: '/admin/keys/rotate', headers: bearer(player.access_token), payload: { emergency: true } }), 403, 'forbidden');
    assert.equal((await h.app.inject({ method: 'POST', url: '/admin/keys/rotate', payload: {} })).statusCode, 401);

    await h.tdb.db.query(`UPDATE accounts SET roles = ARRAY['player', 'admin'] WHERE id = $1`, [player.account_id]);
    const admin = (await h.app.inject({ method: 'POST', url: '/login', payload: { email: player.email, password: player.password } })).json();
    const bad = await h.app.inject({ method: 'POST', url: '/admin/keys/rotate', headers: bearer(admin.access_token), payload: { emergency: 'yes' } });
    assert.equal(bad.statusCode, 400);

    const previous = other.auth.keys.signingKey().kid;
    const r = await h.app.inject({ method: 'POST', url: '/admin/keys/rotate', headers: bearer(admin.access_token), payload: { emergency: true } });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().state, 'active');
    assert.equal(h.app.auth.keys.signingKey().kid, r.json().kid);
    // The other node reloads on the key_rotation message, well before its periodic tick.
    for (let i = 0; i < 100 && other.auth.keys.signingKey().kid === previous; i++) await new Promise((res) => setTimeout(res, 20));
    assert.equal(other.auth.keys.signingKey().kid, r.json().kid);
    const g = await guest(other);
    assert.equal(tokenKid(g.access_token).kid, r.json().kid);

    // A normal rotation through the endpoint only publishes.
    const normal = await h.app.inject({ method: 'POST', url: '/admin/keys/rotate', headers: bearer(admin.access_token) });
    assert.equal(normal.statusCode, 200, normal.body);
    assert.equal(normal.statusCode, 200);
    assert.equal(normal.json().state, 'published');
    assert.ok((await jwks()).includes(normal.json().kid));
  });

  it('/healthz and /readyz (database, state store, signing keys)', async () => {
    const live = await h.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(live.statusCode, 200);
    const ready = await h.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json().checks, { database: 'ok', state: 'ok', signing_keys: 'ok' });
  });
});
