/**
 * A developer's second factor in the web console, in Debian's Chromium (playwright-core), against the platform in
 * this process (docs/registry.md, "Second factor (TOTP)"): a developer enrols an authenticator on the Security page
 * (the otpauth URI and the secret shown as text; the code computed with otpauth, as an app would), sees the recovery
 * codes once, signs out, signs in with a code at the second step, then with a recovery code once: its second use
 * fails. The developer's token from before the enrolment stopped working.
 *
 * Without /usr/bin/chromium the suite skips, unless REQUIRE_CHROMIUM=1 (.ci/run), where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import { chromiumSkip } from '@platform/kit/testing';
import { assertNothingKept, openConsole, PASSWORD, shows, startRig, unique, type ConsoleRig } from './support.js';

/** The code an authenticator app shows `offsetSteps` steps from now. */
const codeOf = (secret: string, offsetSteps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + offsetSteps * 30_000 });

describe('web console in Chromium: developer second factor', { skip: chromiumSkip() }, () => {
  let rig: ConsoleRig;
  before(async () => {
    rig = await startRig();
  });
  after(async () => rig?.close());

  it('enrol on the Security page, sign out, sign in with a code, then with a recovery code once (the second use fails)', async () => {
    const registry = rig.platform.registry;
    const email = `${unique('mfa-dev')}@console.test`;
    const dev = await registry.call('POST', '/developers/register', { body: { Email: email, Password: PASSWORD, DisplayName: 'Careful Studio' } });
    assert.equal(dev.status, 201, JSON.stringify(dev.body));

    const tab = await openConsole(rig);
    const { page } = tab;
    const signIn = async () => {
      await page.locator('#dev-signin').waitFor();
      await page.fill('#dev-signin [name=email]', email);
      await page.fill('#dev-signin [name=password]', PASSWORD);
      await page.click('#dev-signin button');
    };
    const signOut = async () => {
      await page.click('#sign-out');
      await page.locator('#dev-signin').waitFor();
    };
    await signIn();
    await shows(page, 'h1', 'Your games');

    // Enrol: the URI and the secret as text, the current code, the recovery codes once.
    await page.click('#nav a[href="#/security"]');
    await shows(page, '#mfa-state', 'Off');
    await page.click('#mfa-start');
    const uri = await page.locator('#mfa-uri').innerText();
    const secret = await page.locator('#mfa-secret').innerText();
    assert.match(uri, /^otpauth:\/\/totp\/.*secret=[A-Z2-7]+/);
    assert.ok(uri.includes(`secret=${secret}`), uri);
    // A wrong code first: refused, shown, nothing turned on.
    await page.fill('#mfa-confirm [name=code]', String((Number(codeOf(secret)) + 500_000) % 1_000_000).padStart(6, '0'));
    await page.click('#mfa-confirm button');
    await shows(page, '#status.error', 'invalid_mfa_code');
    // The current step's code; the sign-in below uses the next step's (within the drift, and newer whenever it is
    // typed: a previous step's code could be two steps old by the time it arrives).
    await page.fill('#mfa-confirm [name=code]', codeOf(secret));
    await page.click('#mfa-confirm button');
    await page.locator('#secret-value').waitFor();
    const recovery = (await page.locator('#secret-value').innerText()).trim().split(/\s+/);
    assert.equal(recovery.length, 10);
    await page.click('#secret-done');
    await shows(page, '#mfa-state', 'Recovery codes left: 10');
    // The token from before the enrolment is refused now; the console's own (replaced) one still works.
    assert.equal((await registry.call('GET', '/games', { token: dev.body.Token })).status, 401);
    await page.click('#nav a[href="#/games"]');
    await shows(page, 'h1', 'Your games');

    // Sign out; sign in: the registry asks for the code.
    await signOut();
    await signIn();
    await page.locator('#dev-mfa').waitFor();
    await page.fill('#dev-mfa [name=code]', codeOf(secret, 1));
    await page.click('#dev-mfa button');
    await shows(page, 'h1', 'Your games');

    // With a recovery code: once.
    await signOut();
    await signIn();
    await page.locator('#dev-mfa').waitFor();
    await page.fill('#dev-mfa [name=code]', recovery[0]);
    await page.click('#dev-mfa button');
    await shows(page, 'h1', 'Your games');
    await page.click('#nav a[href="#/security"]');
    await shows(page, '#mfa-state', 'Recovery codes left: 9');

    await signOut();
    await signIn();
    await page.locator('#dev-mfa').waitFor();
    await page.fill('#dev-mfa [name=code]', recovery[0]);
    await page.click('#dev-mfa button');
    await shows(page, '#status.error', 'invalid_mfa_code');
    assert.equal(await page.locator('#nav a[href="#/games"]').count(), 0, 'not signed in');

    await assertNothingKept(tab);
    await tab.context.close();
  });
});
