// What staff do to an account, seen from both sides (docs/auth.md, "Sanctions" and "Audit"): the player's export
// never names the moderator, admin or service that acted (neither id nor address), and a moderator can neither set
// nor lift a sanction of a moderator or admin (issue 25, items 3 and 5).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serviceToken } from '../src/services/outbox.js';
import { bearer, harness, register, type Harness, withRoles as withRolesOf } from './support/harness.js';

const MODERATOR_IP = '198.51.100.77';
const ADMIN_IP = '203.0.113.91';
const PLAYER_IP = '192.0.2.15';

describe('staff actions', () => {
  let h: Harness;
  let admin: { token: string; account_id: string; email: string };
  let moderator: { token: string; account_id: string; email: string };
  let server: string;

  const withRoles = (roles: string[]) => withRolesOf(h, roles);

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, token: string, ip: string, payload?: unknown) =>
    h.app.inject({ method, url, headers: bearer(token), remoteAddress: ip, ...(payload === undefined ? {} : { payload: payload as object }) });
  const sanction = (id: string, body: Record<string, unknown>, token: string, ip: string) => call('POST', `/admin/accounts/${id}/sanctions`, token, ip, body);
  const lift = (id: string, token: string, ip: string) => call('POST', `/admin/sanctions/${id}/lift`, token, ip, { reason: 'Appeal accepted' });

  before(async () => {
    h = await harness({ AUTH_RATE_GENERAL_PER_IP: '100000', AUTH_RATE_LOGIN_PER_IP: '100000', AUTH_RATE_LOGIN_PER_IP_EMAIL: '100000', AUTH_SANCTION_SWEEP_SECONDS: '3600' });
    admin = await withRoles(['player', 'admin']);
    moderator = await withRoles(['player', 'moderator']);
    server = await serviceToken(h.config, h.app.auth.keys, 'registry');
  });
  after(() => h.close());

  it("the player's export lists what staff did (sanctions, lifts, a ban, roles) without their ids or addresses", async () => {
    const u = await register(h.app);
    const chat = (await sanction(u.account_id, { type: 'chat', reason: 'Spam', duration_seconds: 600 }, moderator.token, MODERATOR_IP)).json();
    assert.equal((await lift(chat.id, moderator.token, MODERATOR_IP)).statusCode, 200);
    const ban = await sanction(u.account_id, { type: 'ban', reason: 'Cheating', duration_seconds: 600 }, moderator.token, MODERATOR_IP);
    assert.equal(ban.statusCode, 201, ban.body);
    assert.equal((await lift(ban.json().id, admin.token, ADMIN_IP)).statusCode, 200);
    const roles = await call('PUT', `/admin/accounts/${u.account_id}/roles`, admin.token, ADMIN_IP, { roles: ['player'] });
    assert.equal(roles.statusCode, 200, roles.body);
    // A service (a game server's or the registry's token) acts too.
    const mute = (await sanction(u.account_id, { type: 'chat', reason: 'Automated filter', duration_seconds: 60 }, server, '10.1.2.3')).json();
    assert.equal((await lift(mute.id, server, '10.1.2.3')).statusCode, 200);

    // The ban ended the player's sessions: sign in again (from the player's own address) and export.
    const login = await h.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: u.password }, remoteAddress: PLAYER_IP });
    assert.equal(login.statusCode, 200, login.body);
    const exp = await call('POST', '/account/export', login.json().access_token, PLAYER_IP);
    assert.equal(exp.statusCode, 200, exp.body);
    const text = exp.body;
    for (const secret of [moderator.account_id, admin.account_id, moderator.email, admin.email, MODERATOR_IP, ADMIN_IP, 'service:registry', '10.1.2.3']) {
      assert.ok(!text.includes(secret), `the export names ${secret}`);
    }
    const entries = exp.json().audit_log as { event: string; by: string; ip: string | null; detail: Record<string, unknown> }[];
    const staffEntries = entries.filter((e) => ['sanction', 'sanction_lift', 'role_change'].includes(e.event));
    assert.equal(staffEntries.length, 7, JSON.stringify(entries));
    for (const e of staffEntries) assert.equal(e.ip, null);
    assert.deepEqual(new Set(staffEntries.map((e) => e.by)), new Set(['staff', 'platform']));
    // What changed is still there: the sanction's id and type, the roles before and after.
    assert.ok(staffEntries.some((e) => e.event === 'sanction' && e.detail.sanction_id === chat.id && e.detail.type === 'chat'));
    assert.ok(staffEntries.some((e) => e.event === 'role_change' && Array.isArray(e.detail.to)));
    // The ban's revocation entry (logout of every session) is the staff's too.
    // The player's own sign-in keeps its address: it is the player's.
    const ownLogin = entries.filter((e) => e.event === 'login' && e.ip === PLAYER_IP);
    assert.ok(ownLogin.length >= 1, JSON.stringify(entries));
  });

  it('staff still see who acted in the account lookup (actor and address)', async () => {
    const u = await register(h.app);
    await sanction(u.account_id, { type: 'chat', reason: 'Spam', duration_seconds: 600 }, moderator.token, MODERATOR_IP);
    const view = (await call('GET', `/admin/accounts/${u.account_id}`, admin.token, ADMIN_IP)).json();
    const entry = view.audit.find((e: { event: string }) => e.event === 'sanction');
    assert.deepEqual([entry.actor, entry.ip], [moderator.account_id, MODERATOR_IP]);
  });

  it("a moderator cannot lift an admin's ban of a moderator, nor a sanction of an admin; an admin and a service can", async () => {
    const otherModerator = await withRoles(['player', 'moderator']);
    const ban = await sanction(otherModerator.account_id, { type: 'ban', reason: 'Abuse of tools', duration_seconds: 600 }, admin.token, ADMIN_IP);
    assert.equal(ban.statusCode, 201, ban.body);
    const refused = await lift(ban.json().id, moderator.token, MODERATOR_IP);
    assert.deepEqual([refused.statusCode, refused.json().code], [403, 'forbidden']);
    // Still banned, still active as a sanction.
    const still = (await call('GET', `/admin/accounts/${otherModerator.account_id}`, admin.token, ADMIN_IP)).json();
    assert.equal(still.account.status, 'banned');
    assert.equal(still.sanctions[0].active, true);
    assert.equal((await lift(ban.json().id, admin.token, ADMIN_IP)).statusCode, 200);

    const otherAdmin = await withRoles(['player', 'admin']);
    const mute = (await sanction(otherAdmin.account_id, { type: 'chat', reason: 'Tone', duration_seconds: 600 }, admin.token, ADMIN_IP)).json();
    const refused2 = await lift(mute.id, moderator.token, MODERATOR_IP);
    assert.deepEqual([refused2.statusCode, refused2.json().code], [403, 'forbidden']);
    assert.equal((await lift(mute.id, server, '10.1.2.3')).statusCode, 200);
  });

  it("a moderator still lifts a player's sanctions, whoever set them; a player who became a moderator keeps staff protection", async () => {
    const u = await register(h.app);
    const s = (await sanction(u.account_id, { type: 'chat', reason: 'Spam', duration_seconds: 600 }, admin.token, ADMIN_IP)).json();
    assert.equal((await lift(s.id, moderator.token, MODERATOR_IP)).statusCode, 200);
    // Sanctioned as a player, then promoted: the sanction is now a staff member's, an admin's to lift.
    const s2 = (await sanction(u.account_id, { type: 'chat', reason: 'Spam again', duration_seconds: 600 }, moderator.token, MODERATOR_IP)).json();
    await call('PUT', `/admin/accounts/${u.account_id}/roles`, admin.token, ADMIN_IP, { roles: ['player', 'moderator'] });
    const refused = await lift(s2.id, moderator.token, MODERATOR_IP);
    assert.deepEqual([refused.statusCode, refused.json().code], [403, 'forbidden']);
  });
});
