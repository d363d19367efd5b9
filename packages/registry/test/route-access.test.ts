// Every registry route, reached by every spelling of its path, answers as its plain path does for the same
// caller (anonymous, developer, super-admin, game credentials), or reaches no route.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { routeSpellingMismatches } from '@platform/kit/testing';
import { bearer, useHarness, loginAdmin, registerDeveloper } from './helpers.js';

describe('route access by the route that runs (registry)', () => {
  const h = useHarness();

  it('every route answers every spelling of its path as the plain path, or reaches no route', async () => {
    const dev = await registerDeveloper(h.app);
    const admin = await loginAdmin(h.app);
    const { walked, mismatches } = await routeSpellingMismatches(h.app, {
      callers: [
        async () => ({}),
        async () => bearer(dev.token),
        async () => bearer(admin.token),
        async () => ({ 'x-platform-api-key': 'pk_unknown', 'x-platform-api-secret': 'unknown' }),
      ],
    });
    assert.ok(walked > 10, `walked ${walked} routes`);
    assert.deepEqual(mismatches, []);
  });
});
