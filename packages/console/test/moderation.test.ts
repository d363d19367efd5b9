/**
 * The web console in Debian's Chromium (playwright-core), moderation side, against the three services in this
 * process: a player reports another (SDK in Node); a moderator opens the report with its snapshot in the console
 * and bans the player, whose open socket closes (4003) and who can no longer sign in; an admin looks an account
 * up, applies and lifts a sanction and grants a role; a player account is refused as staff. After each, nothing
 * of the session is in the browser: no storage, no cookie, no token in the console messages or the page.
 * The developer side: console.test.ts.
 *
 * Without /usr/bin/chromium the suite skips, unless REQUIRE_CHROMIUM=1 (.ci/run), where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumSkip, SoftAuthenticator } from '@platform/kit/testing';
import { assertNothingKept, openConsole, startRig, type ConsoleRig } from './support.js';
import { accountFlow, appealFlow, guestScoreFlow, moderatorFlow, newPlayer, staffAccount, staffSignIn } from './flows.js';
import { shows, PASSWORD } from './support.js';
import { Secret, TOTP } from 'otpauth';

describe('web console in Chromium: moderation', { skip: chromiumSkip() }, () => {
  let rig: ConsoleRig;
  before(async () => {
    rig = await startRig();
  });
  after(async () => rig?.close());

  it('staff see a guest’s abuse score and its reasons on the account page', async () => {
    const tab = await openConsole(rig);
    await guestScoreFlow(rig, tab);
    await assertNothingKept(tab);
    await tab.context.close();
  });

  it('a moderator opens a report with its snapshot and bans the player: the player’s socket closes (4003)', async () => {
    const tab = await openConsole(rig);
    await moderatorFlow(rig, tab);
    await assertNothingKept(tab);
    await tab.context.close();
  });

  it('the queue pages past 100 reports of a state: Older reports shows the rest, Newest goes back; repeats show as ×N', async () => {
    // 130 dismissed reports (their reporters and targets erased: no player needed), one merged one among them.
    await rig.platform.socialDb.query(
      `INSERT INTO reports (reason, context, state, created_at, repeat_count)
         SELECT 'spam', 'bulk ' || g, 'dismissed', now() - interval '1 day' - g * interval '1 second', CASE WHEN g = 120 THEN 7 ELSE 0 END
           FROM generate_series(1, 130) g`,
    );
    const tab = await openConsole(rig);
    const mod = await staffAccount(rig, ['moderator']);
    await staffSignIn(tab, mod.email);
    await tab.page.selectOption('#report-state', 'dismissed');
    await shows(tab.page, '#reports', 'bulk 99');
    const rows = () => tab.page.locator('#reports tbody tr', { hasText: 'bulk ' }).count();
    assert.equal(await rows(), 100);
    assert.equal(await tab.page.locator('#reports', { hasText: 'bulk 101' }).count(), 0);
    await tab.page.click('#reports-older');
    await shows(tab.page, '#reports', 'bulk 130');
    assert.equal(await rows(), 30);
    await shows(tab.page, '#reports tr', '×7');
    assert.equal(await tab.page.locator('#reports-older').count(), 0, 'the last page');
    await tab.page.click('#reports-newest');
    await shows(tab.page, '#reports', 'bulk 99');
    assert.equal(await rows(), 100);
    await assertNothingKept(tab);
    await tab.context.close();
  });

  it('a report naming a match shows the match’s roster in its snapshot', async () => {
    // A report as social files one with context match:<id> (docs/social.md, "Recent players"); its reporter and
    // target erased since, so no player is needed: the snapshot is what the console shows.
    const snapshot = {
      takenAt: new Date().toISOString(),
      target: { publicId: 'p_gone', fullHandle: 'Aimbot#4242', displayName: 'Aimbot', avatarUrl: null, status: null },
      match: { matchId: 'ranked-981', endedAt: new Date().toISOString(), roster: [{ publicId: 'p_a', fullHandle: 'Aimbot#4242' }, { publicId: 'p_b', fullHandle: 'Witness#0007' }] },
    };
    const r = await rig.platform.socialDb.query<{ id: string }>(
      `INSERT INTO reports (reason, context, state, snapshot) VALUES ('cheating', 'match:ranked-981 wallhack', 'received', $1) RETURNING id`,
      [JSON.stringify(snapshot)],
    );
    const tab = await openConsole(rig);
    const mod = await staffAccount(rig, ['moderator']);
    await staffSignIn(tab, mod.email);
    await shows(tab.page, '#reports', 'match:ranked-981 wallhack');
    await tab.page.locator('#reports tr', { hasText: 'match:ranked-981' }).first().locator('a').click();
    await shows(tab.page, '#snapshot', 'Match ranked-981');
    assert.deepEqual(await tab.page.locator('#snapshot-roster li').allTextContents(), ['Aimbot#4242', 'Witness#0007']);
    assert.ok(r.rows[0].id);
    await assertNothingKept(tab);
    await tab.context.close();
  });

  it('an admin looks an account up, applies a chat sanction, lifts it and grants the moderator role; a player is refused as staff', async () => {
    const tab = await openConsole(rig);
    await accountFlow(rig, tab);
    await assertNothingKept(tab);
    await tab.context.close();
  });

  it('an admin resets the second factors of a player who lost them: asked to confirm, the authenticator goes, audited', async () => {
    const pat = await newPlayer(rig, 'Lost');
    const { secret } = await pat.client.auth.startTotp();
    await pat.client.auth.confirmTotp(new TOTP({ secret: Secret.fromBase32(secret) }).generate());
    const admin = await staffAccount(rig, ['admin']);
    const tab = await openConsole(rig);
    await staffSignIn(tab, admin.email);
    await tab.page.goto(`${rig.url}#/accounts/${pat.accountId}`);
    await shows(tab.page, '#identities', pat.email);
    await tab.page.fill('#account-factor-reset [name=reason]', 'Case 12: lost phone, identity checked');
    await tab.page.click('#account-factor-reset button');
    await tab.page.click('#confirm-yes');
    await shows(tab.page, '#status', 'Second factors reset: authenticator removed, 0 passkey(s) removed');
    await shows(tab.page, '#audit', 'Case 12: lost phone');
    const { rows } = await rig.platform.authDb.query('SELECT 1 FROM totp_factors WHERE account_id = $1', [pat.accountId]);
    assert.equal(rows.length, 0);
    await assertNothingKept(tab);
    await tab.context.close();
  });

  it('appeals: the player appeals a sanction from a report; a moderator reads it beside the report and its snapshot, shortens it; the answer reaches the inbox', async () => {
    const tab = await openConsole(rig);
    await appealFlow(rig, tab);
    await assertNothingKept(tab);
    await tab.context.close();
  });

  it('a staff account with an authenticator: refused without its code, signed in with it (TOTP second step)', async () => {
    const mod = await staffAccount(rig, ['moderator']);
    const c = rig.player();
    await c.auth.signInWithEmail({ email: mod.email, password: PASSWORD });
    const { secret } = await c.auth.startTotp();
    const code = (steps: number) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + steps * 30_000 });
    await c.auth.confirmTotp(code(0));
    const tab = await openConsole(rig);
    await tab.page.fill('#staff-signin [name=email]', mod.email);
    await tab.page.fill('#staff-signin [name=password]', PASSWORD);
    await tab.page.click('#staff-signin button');
    await shows(tab.page, '#status.error', 'enter its code');
    await tab.page.fill('#staff-signin [name=code]', code(1));
    await tab.page.click('#staff-signin button');
    await shows(tab.page, 'h1', 'Report queue');
    await assertNothingKept(tab);
    await tab.context.close();
  });

  it('a staff account with a passkey: the password sign-in finishes with the passkey (no code typed)', async () => {
    const mod = await staffAccount(rig, ['moderator']);
    const registryPort = new URL(rig.url).port;
    const soft = new SoftAuthenticator(`http://localhost:${registryPort}`);
    const c = rig.player();
    await c.auth.signInWithEmail({ email: mod.email, password: PASSWORD });
    await c.auth.addPasskey({ authenticator: { create: async (o) => soft.create(o), get: async (o) => soft.get(o) } });
    // The same credential in the browser's virtual authenticator (the staff member's device).
    const tab = await openConsole(rig, `http://localhost:${registryPort}/console/`);
    const cdp = await tab.context.newCDPSession(tab.page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    const cred = soft.credentials[0]!;
    await cdp.send('WebAuthn.addCredential', {
      authenticatorId,
      credential: {
        credentialId: cred.id.toString('base64'),
        isResidentCredential: true,
        rpId: 'localhost',
        privateKey: cred.privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
        userHandle: Buffer.from(cred.userHandle, 'base64url').toString('base64'),
        signCount: cred.counter,
      },
    });
    await tab.page.fill('#staff-signin [name=email]', mod.email);
    await tab.page.fill('#staff-signin [name=password]', PASSWORD);
    await tab.page.click('#staff-signin button');
    await shows(tab.page, 'h1', 'Report queue');
    await assertNothingKept(tab);
    await tab.context.close();
  });
});
