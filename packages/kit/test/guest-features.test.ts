// The guest features list and its setting (kit guest-features.ts, config.ts vars.guestFeatures).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GUEST_FEATURES, guestFeaturesOf, guestRestrictionDetails, parseGuestFeatures, vars } from '../src/index.js';

describe('guest features', () => {
  it('every feature names its service and what upgrading unlocks', () => {
    for (const [name, f] of Object.entries(GUEST_FEATURES)) {
      assert.match(name, /^[a-z_]+$/);
      assert.ok(['social', 'auth'].includes(f.service), name);
      assert.ok(f.unlocks.length > 5 && !f.unlocks.endsWith('.'), name);
    }
    assert.deepEqual(guestRestrictionDetails('reports'), { feature: 'reports', unlocks: GUEST_FEATURES.reports.unlocks });
    assert.ok(guestFeaturesOf('auth').includes('change_email'));
    assert.ok(!guestFeaturesOf('social').includes('change_email'));
  });

  it('parses a comma list, deduplicated; unknown names are reported', () => {
    assert.deepEqual(parseGuestFeatures(' reports, party_create ,reports'), { features: ['reports', 'party_create'] });
    assert.deepEqual(parseGuestFeatures(''), { features: [] });
    assert.deepEqual(parseGuestFeatures('reports,dm_everyone'), { unknown: ['dm_everyone'] });
  });

  it('the setting: default when unset, none for the empty list, only the service’s features', () => {
    const v = vars.guestFeatures('X_GUEST_RESTRICTED', 'social', { default: ['reports'] });
    assert.deepEqual(v.read({}), ['reports']);
    assert.deepEqual(v.read({ X_GUEST_RESTRICTED: 'none' }), []);
    assert.deepEqual(v.read({ X_GUEST_RESTRICTED: 'party_chat,party_create' }), ['party_chat', 'party_create']);
    assert.throws(() => v.read({ X_GUEST_RESTRICTED: 'change_email' }), /not a social guest feature: change_email/);
    assert.throws(() => v.read({ X_GUEST_RESTRICTED: 'reports,nope' }), /nope/);
  });
});
