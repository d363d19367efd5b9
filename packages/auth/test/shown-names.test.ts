// Names shown to another person (issue 25, item 10; docs/decisions/0007-display-names.md): a device name or a
// display name is normalised and stripped of bidi, zero-width and line-breaking characters before it is stored, and
// a row stored before that rule is cleaned where it is shown (device page lookup, session list, staff search).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEVICE_CODE_GRANT } from '../src/services/device-grants.js';
import { bearer, useHarness, register } from './support/harness.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
// "Official Store (verified)" made of a right-to-left override, an isolate, a line separator and a zero-width space.
const SPOOF = 'Evil TV\u202E)deifirev(\u2066 Official\u2028Store\u200B\u2069 (verified)\r\n';
const INVISIBLE = /[\u202A-\u202E\u2066-\u2069\u200B\u200E\u200F\u2028\u2029\r\n\t]/;

describe('names shown to others', () => {
  const h = useHarness({ AUTH_RATE_DEVICE_AUTHORIZE_PER_IP: '1000', AUTH_RATE_DEVICE_VERIFY_PER_IP: '1000', AUTH_RATE_DEVICE_VERIFY_PER_ACCOUNT: '1000' });

  it('a device name with bidi and separator characters reaches the device page and the session list cleaned', async () => {
    const u = await register(h.app);
    const start = await h.app.inject({ method: 'POST', url: '/oauth/device_authorization', headers: FORM, payload: form({ client_id: 'tv', device_name: SPOOF }) });
    assert.equal(start.statusCode, 200, start.body);
    const { user_code, device_code } = start.json();
    const look = await h.app.inject({ method: 'POST', url: '/device/lookup', headers: bearer(u.access_token), payload: { user_code } });
    assert.equal(look.statusCode, 200, look.body);
    assert.equal(look.json().device_name, 'Evil TV)deifirev( Official Store (verified)');
    assert.ok(!INVISIBLE.test(look.json().device_name));
    await h.app.inject({ method: 'POST', url: '/device/decision', headers: bearer(u.access_token), payload: { user_code, approve: true } });
    const tokens = await h.app.inject({ method: 'POST', url: '/oauth/token', headers: FORM, payload: form({ grant_type: DEVICE_CODE_GRANT, device_code, client_id: 'tv' }) });
    assert.equal(tokens.statusCode, 200, tokens.body);
    const list = await h.app.inject({ url: '/account/sessions', headers: bearer(u.access_token) });
    const names = list.json().sessions.map((s: { device: { name: string | null } }) => s.device.name).filter(Boolean);
    assert.deepEqual(names, ['Evil TV)deifirev( Official Store (verified)']);
  });

  it('a name of invisible characters only is refused like an empty one; a stored legacy name is cleaned where shown', async () => {
    const blank = await h.app.inject({ method: 'POST', url: '/oauth/device_authorization', headers: FORM, payload: form({ client_id: 'tv', device_name: '\u202E\u2066\u200B\u2028' }) });
    assert.equal(blank.statusCode, 400, blank.body);
    const u = await register(h.app);
    const patched = await h.app.inject({ method: 'PATCH', url: '/account', headers: bearer(u.access_token), payload: { display_name: 'Ada\u202E\u2028Lovelace' } });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal((await h.app.inject({ url: '/account', headers: bearer(u.access_token) })).json().display_name, 'Ada Lovelace');
    // A row written before the rule (straight into the table) is cleaned in the staff search.
    await h.tdb.db.query(`UPDATE accounts SET display_name = $2, roles = '{player,moderator}' WHERE id = $1`, [u.account_id, 'Legacy\u202Eeman\u2029x']);
    const staff = (await h.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: u.password } })).json().access_token;
    const found = await h.app.inject({ url: `/admin/accounts?q=${u.account_id}`, headers: bearer(staff) });
    assert.equal(found.json().accounts[0].display_name, 'Legacyeman x');
  });
});
