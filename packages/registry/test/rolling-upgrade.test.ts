// Rolling upgrades (docs/deployment.md, "Rolling upgrades"; docs/decisions/0020-versioned-messages.md): a registry
// node of this release fed the cache invalidations a node of the previous release wrote (plain text, recorded from
// that release's code: packages/e2e/test/fixtures/wire/previous.json), through the real store (Redis with
// REDIS_URL), drops its cached entry; so does the JSON version 2 the next release writes; what it cannot read drops
// every entry rather than none.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { sha256Hex, type App } from '@platform/kit';
import { INVALIDATION_CHANNEL, INVALIDATION_WIRE } from '../src/services/api-key-cache.js';
import { createGame, harness, registerDeveloper, type CreatedGame, type Dev, type Harness } from './helpers.js';

const previous = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../e2e/test/fixtures/wire/previous.json'), 'utf8')) as {
  messages: Record<string, { by: string; raw: string }[]>;
};
const validate = (app: App, ApiKey: string, ApiSecret: string) => app.inject({ method: 'POST', url: '/auth/validate-key', payload: { ApiKey, ApiSecret } });

describe('rolling upgrade: the registry reads the previous release’s cache invalidations', () => {
  let h: Harness;
  let dev: Dev;
  before(async () => {
    // A long cache life: only an invalidation explains a fresh answer.
    h = await harness({ keyCacheTtlMs: 60_000 });
    dev = await registerDeveloper(h.app);
  });
  after(() => h.drop());

  /** A game whose pair the node cached, then whose secret changed behind the cache's back (no invalidation sent). */
  async function cachedThenChanged(): Promise<{ g: CreatedGame; fresh: string }> {
    const g = await createGame(h.app, dev.token);
    assert.equal((await validate(h.app, g.apiKey, g.apiSecret)).statusCode, 200);
    const fresh = randomBytes(24).toString('hex');
    await h.db.query('UPDATE games SET api_secret_hash = $2 WHERE id = $1', [g.gameId, sha256Hex(fresh)]);
    assert.equal((await validate(h.app, g.apiKey, fresh)).statusCode, 401, 'the cached entry answers');
    return { g, fresh };
  }
  async function eventually(check: () => Promise<boolean>): Promise<boolean> {
    for (let i = 0; i < 100; i++) {
      if (await check()) return true;
      await new Promise((r) => setTimeout(r, 20));
    }
    return false;
  }

  it('a recorded invalidation of the previous release (plain text) drops the entry', async () => {
    const recorded = previous.messages['registry.apiKeyInvalidation'].find((m) => m.raw === '{{apiKey}}');
    assert.ok(recorded, 'the recording has an ApiKey invalidation');
    const { g, fresh } = await cachedThenChanged();
    await h.state.publish(INVALIDATION_CHANNEL, recorded.raw.replace('{{apiKey}}', g.apiKey));
    assert.ok(await eventually(async () => (await validate(h.app, g.apiKey, fresh)).statusCode === 200));
  });

  it('the next release’s JSON version 2 drops the entry; an unreadable one drops every entry', async () => {
    const one = await cachedThenChanged();
    await h.state.publish(INVALIDATION_CHANNEL, JSON.stringify({ v: 2, key: one.g.apiKey }));
    assert.ok(await eventually(async () => (await validate(h.app, one.g.apiKey, one.fresh)).statusCode === 200));
    const two = await cachedThenChanged();
    await h.state.publish(INVALIDATION_CHANNEL, JSON.stringify({ v: 3, key: 'from a release two ahead' }));
    assert.ok(await eventually(async () => (await validate(h.app, two.g.apiKey, two.fresh)).statusCode === 200));
    // And this release still writes what the previous one reads: the key as plain text.
    assert.equal(INVALIDATION_WIRE.encode({ key: two.g.apiKey }), two.g.apiKey);
  });
});
