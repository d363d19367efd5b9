// store_a: encrypted app tickets built with the format's real encryption and
// verified through steam-appticket.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readConfig } from '@platform/kit';
import { createPlatformVerifiers, platformProviderVars } from '../../src/providers/index.js';
import { buildEncryptedAppTicket, individualSteamId } from '../support/steam-ticket.js';
import { assertAppError } from '@platform/kit/testing';

const APP_ID = 480;
const key = randomBytes(32);
const config = readConfig(platformProviderVars, {
  AUTH_STORE_A_APP_ID: String(APP_ID),
  AUTH_STORE_A_ENCRYPTION_KEY: key.toString('hex'),
});
const verifiers = createPlatformVerifiers(config);
const steamId = individualSteamId(22_202);
const ticket = (over: Partial<Parameters<typeof buildEncryptedAppTicket>[0]> = {}) =>
  buildEncryptedAppTicket({ appId: APP_ID, steamId, key, ...over });

describe('store_a encrypted app tickets', () => {
  it('verifies a hex ticket and yields the steam id as a decimal string', async () => {
    const id = await verifiers.verify('store_a', ticket().toString('hex'));
    assert.deepEqual(id, { provider: 'store_a', providerUserId: '76561197960287930' });
    assert.equal(steamId, '76561197960287930');
  });

  it('accepts the same ticket as base64, base64url, upper-case hex and with user data', async () => {
    const t = ticket({ userData: Buffer.from('login-request-1') });
    for (const form of [t.toString('base64'), t.toString('base64url'), t.toString('hex').toUpperCase()]) {
      assert.equal((await verifiers.verify('store_a', form)).providerUserId, steamId);
    }
  });

  it('lists store_a as the only configured provider, with the default age limit', () => {
    assert.deepEqual(verifiers.configured(), ['store_a']);
    assert.equal(config.storeA?.maxTicketAgeSeconds, 300);
  });

  it('rejects a ticket issued for another app id', async () => {
    await assertAppError(verifiers.verify('store_a', ticket({ appId: 481 }).toString('hex')), 401, 'invalid_ticket', /another app id/);
  });

  it('rejects a ticket older than the age limit, and accepts one just inside it', async () => {
    const old = ticket({ issuedAt: new Date(Date.now() - 301_000) });
    await assertAppError(verifiers.verify('store_a', old.toString('hex')), 401, 'invalid_ticket', /too old/);
    const recent = ticket({ issuedAt: new Date(Date.now() - 240_000) });
    assert.equal((await verifiers.verify('store_a', recent.toString('hex'))).providerUserId, steamId);
  });

  it('honours AUTH_STORE_A_MAX_TICKET_AGE_SECONDS', async () => {
    const strict = createPlatformVerifiers(
      readConfig(platformProviderVars, {
        AUTH_STORE_A_APP_ID: String(APP_ID),
        AUTH_STORE_A_ENCRYPTION_KEY: key.toString('base64'),
        AUTH_STORE_A_MAX_TICKET_AGE_SECONDS: '60',
      }),
    );
    const t = ticket({ issuedAt: new Date(Date.now() - 120_000) }).toString('hex');
    await assertAppError(strict.verify('store_a', t), 401, 'invalid_ticket', /older than 60 s/);
    assert.equal((await verifiers.verify('store_a', t)).providerUserId, steamId);
  });

  it('rejects a ticket issued in the future beyond the clock skew', async () => {
    const t = ticket({ issuedAt: new Date(Date.now() + 120_000) });
    await assertAppError(verifiers.verify('store_a', t.toString('hex')), 401, 'invalid_ticket', /future/);
  });

  it('uses the injected clock for ticket age', async () => {
    const later = createPlatformVerifiers(config, { now: () => Date.now() + 3_600_000 });
    await assertAppError(later.verify('store_a', ticket().toString('hex')), 401, 'invalid_ticket', /too old/);
  });

  it('rejects a ticket encrypted with another key, without crashing the process', async () => {
    // Many of these fail the PKCS#7 padding check, which inside steam-appticket is an
    // asynchronous stream error: unguarded it would be an uncaught exception here.
    for (let i = 0; i < 20; i++) {
      const t = buildEncryptedAppTicket({ appId: APP_ID, steamId, key: randomBytes(32) });
      await assertAppError(verifiers.verify('store_a', t.toString('hex')), 401, 'invalid_ticket', /not encrypted with this app's key/);
    }
    await new Promise((r) => setImmediate(r));
  });

  it('rejects truncated, extended and bit-flipped tickets', async () => {
    const t = ticket();
    const variants = [
      t.subarray(0, t.length - 1),
      t.subarray(0, t.length - 16),
      t.subarray(0, 20),
    ];
    await assertAppError(verifiers.verify('store_a', variants[0].toString('hex')), 401, 'invalid_ticket');
    await assertAppError(verifiers.verify('store_a', variants[1].toString('hex')), 401, 'invalid_ticket');
    await assertAppError(verifiers.verify('store_a', variants[2].toString('hex')), 401, 'invalid_ticket');
    for (let i = 0; i < 40; i++) {
      const flipped = Buffer.from(t);
      flipped[t.length - 1 - i] ^= 0x01; // inside the ciphertext
      await assertAppError(verifiers.verify('store_a', flipped.toString('hex')), 401, 'invalid_ticket');
    }
    await new Promise((r) => setImmediate(r));
  });

  it('rejects a ticket that names a non-individual steam id', async () => {
    const gameServer = ((1n << 56n) | (3n << 52n) | 77n).toString();
    const t = buildEncryptedAppTicket({ appId: APP_ID, steamId: gameServer, key });
    await assertAppError(verifiers.verify('store_a', t.toString('hex')), 401, 'invalid_ticket', /individual account/);
  });

  it('rejects garbage without echoing it', async () => {
    for (const bad of ['', '   ', 'not a ticket!', 'abc', '00', 'zz'.repeat(40), randomBytes(200).toString('hex'), 'A'.repeat(20_000)]) {
      const err = await assertAppError(verifiers.verify('store_a', bad), 401, 'invalid_ticket');
      if (bad.trim().length > 3) assert.ok(!err.message.includes(bad.trim()), 'the message must not echo the ticket');
    }
  });

  it('reports unknown and unconfigured providers with 400', async () => {
    const t = ticket().toString('hex');
    await assertAppError(verifiers.verify('store_c', t), 400, 'unknown_provider');
    await assertAppError(verifiers.verify('guest', t), 400, 'unknown_provider');
    await assertAppError(verifiers.verify('STORE_A', t), 400, 'unknown_provider');
    await assertAppError(createPlatformVerifiers({}).verify('store_a', t), 400, 'provider_not_configured');
    await assertAppError(verifiers.verify('idp_a', 'x.y.z'), 400, 'provider_not_configured');
  });
});
