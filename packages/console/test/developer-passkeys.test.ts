/**
 * A developer's passkeys in the web console, in Debian's Chromium (playwright-core) with the DevTools virtual
 * authenticator (CDP `WebAuthn.addVirtualAuthenticator`: CTAP2, resident keys, user verification) standing in for the
 * developer's device, against the platform in this process (docs/registry.md, "Passkeys"; docs/console.md): the
 * Security page adds a passkey (the token from before stops working), "Sign in with a passkey" signs in with it
 * alone, a password sign-in asks for it as the second step, and the Security page removes it (then the password
 * alone signs in again).
 *
 * Without /usr/bin/chromium the suite skips, unless REQUIRE_CHROMIUM=1 (.ci/run), where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumSkip } from '@platform/kit/testing';
import { Secret, TOTP } from 'otpauth';
import { superAdminDevelopers } from './flows.js';
import { assertNothingKept, openConsole, PASSWORD, shows, startRig, unique, type ConsoleRig } from './support.js';

describe('web console in Chromium: developer passkeys', { skip: chromiumSkip() }, () => {
  let rig: ConsoleRig;
  before(async () => {
    rig = await startRig();
  });
  after(async () => rig?.close());

  it('add a passkey on the Security page, sign in with it alone, use it as the second step, remove it', async () => {
    const registry = rig.platform.registry;
    const email = `${unique('passkey-dev')}@console.test`;
    const dev = await registry.call('POST', '/developers/register', { body: { Email: email, Password: PASSWORD, DisplayName: 'Keyed Studio' } });
    assert.equal(dev.status, 201, JSON.stringify(dev.body));

    // The console on http://localhost: a relying party is a domain name, never an IP address.
    const tab = await openConsole(rig, `http://localhost:${new URL(rig.url).port}/console/`);
    const { page } = tab;
    const cdp = await tab.context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    const passwordSignIn = async () => {
      await page.locator('#dev-signin').waitFor();
      await page.fill('#dev-signin [name=email]', email);
      await page.fill('#dev-signin [name=password]', PASSWORD);
      await page.click('#dev-signin button');
    };
    const signOut = async () => {
      await page.click('#sign-out');
      await page.locator('#dev-signin').waitFor();
    };
    await passwordSignIn();
    await shows(page, 'h1', 'Your games');

    // Add: the browser makes it (the virtual authenticator), the registry keeps it, the list shows it.
    await page.click('#nav a[href="#/security"]');
    await shows(page, '#passkey-list', 'None.');
    await page.fill('#passkey-add [name=name]', 'Test laptop');
    await page.click('#passkey-add button');
    await shows(page, '#passkey-list', 'Test laptop');
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    assert.equal(credentials.length, 1);
    assert.equal(credentials[0].rpId, 'localhost');
    // The token from before is refused now; the console's own (replaced) one still works.
    assert.equal((await registry.call('GET', '/games', { token: dev.body.Token })).status, 401);
    await page.click('#nav a[href="#/games"]');
    await shows(page, 'h1', 'Your games');

    // A passkey alone signs in (no password, no second step).
    await signOut();
    await page.click('#dev-passkey-signin');
    await shows(page, 'h1', 'Your games');

    // A password sign-in asks for the passkey (the only factor: no code field), which finishes it.
    await signOut();
    await passwordSignIn();
    await page.locator('#dev-mfa-passkey').waitFor();
    assert.equal(await page.locator('#dev-mfa').count(), 0);
    await page.click('#dev-mfa-passkey');
    await shows(page, 'h1', 'Your games');

    // Remove it: then the password alone signs in again, and the passkey sign-in is refused.
    await page.click('#nav a[href="#/security"]');
    await shows(page, '#passkey-list', 'Test laptop');
    await page.click('#passkey-list button.danger');
    await shows(page, '#passkey-list', 'None.');
    await signOut();
    await page.click('#dev-passkey-signin');
    await shows(page, '#status.error', 'invalid_passkey');
    await passwordSignIn();
    await shows(page, 'h1', 'Your games');
    await assertNothingKept(tab);
    await tab.context.close();
  });

  it('the super-admin resets the second factors of a developer who lost them (Developers page, confirmed): every token of theirs ends', async () => {
    const registry = rig.platform.registry;
    const email = `${unique('lost-dev')}@console.test`;
    const dev = (await registry.call('POST', '/developers/register', { body: { Email: email, Password: PASSWORD, DisplayName: 'Lost Studio' } })).body;
    const { Secret: secret } = (await registry.call('POST', '/developers/me/mfa/totp', { token: dev.Token })).body;
    const on = await registry.call('POST', '/developers/me/mfa/totp/confirm', { token: dev.Token, body: { Code: new TOTP({ secret: Secret.fromBase32(secret) }).generate() } });
    assert.equal(on.status, 200, JSON.stringify(on.body));
    assert.equal((await registry.call('POST', '/developers/login', { body: { Email: email, Password: PASSWORD } })).status, 401, 'mfa_required');

    const tab = await openConsole(rig);
    const { page } = tab;
    await superAdminDevelopers(tab);
    await shows(page, '#developers', email);
    await page.fill('#developer-factor-reset [name=id]', dev.DeveloperId);
    await page.fill('#developer-factor-reset [name=reason]', 'Ticket 9: lost phone, identity checked');
    await page.click('#developer-factor-reset button');
    await page.click('#confirm-yes');
    await shows(page, '#status', 'Second factors reset: authenticator removed, 0 passkey(s) removed');
    assert.equal((await registry.call('GET', '/games', { token: on.body.Token })).status, 401, 'their tokens ended');
    assert.equal((await registry.call('POST', '/developers/login', { body: { Email: email, Password: PASSWORD } })).status, 200, 'the password alone signs in');
    await assertNothingKept(tab);
    await tab.context.close();
  });
});
