/** The SDK's session list (list, end one, end the others) and device sign-in (RFC 8628) against the real services. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PlatformError } from '../src/index.js';
import { PASSWORD, rejects, startTestPlatform, uniqueEmail, type TestPlatform } from './support.js';

describe('client: the account’s sessions and device sign-in', () => {
  let tp: TestPlatform;
  before(async () => {
    tp = await startTestPlatform({ authEnv: { AUTH_DEVICE_POLL_INTERVAL_SECONDS: '1', AUTH_RATE_DEVICE_AUTHORIZE_PER_IP: '1000' } });
  });
  after(async () => {
    await tp.close();
  });

  it('lists the sessions (this one marked), ends one, then all others', async () => {
    const email = uniqueEmail('sessions');
    const phone = tp.client({ platform: 'ios' });
    await phone.auth.register({ email, password: PASSWORD });
    const pc = tp.client({ platform: 'win' });
    await pc.auth.signInWithEmail({ email, password: PASSWORD });
    const laptop = tp.client({ platform: 'mac' });
    await laptop.auth.signInWithEmail({ email, password: PASSWORD });

    const listed = await phone.auth.sessions();
    assert.equal(listed.length, 3);
    assert.deepEqual(listed.filter((s) => s.current).map((s) => s.device.platform), ['ios']);
    const pcSession = listed.find((s) => s.device.platform === 'win')!;
    assert.equal(pcSession.auth_method, 'email');
    assert.ok(pcSession.ip_prefix);

    await phone.auth.endSession(pcSession.id);
    // The PC's access token is refused and its refresh token too: it is signed out.
    const ended = await pc.auth.account().then(
      () => assert.fail('the ended session still works'),
      (e: unknown) => e,
    );
    assert.ok(ended instanceof PlatformError && ended.status === 401, String(ended));
    await rejects(phone.auth.endSession(pcSession.id), 404, 'session_not_found');

    assert.equal(await phone.auth.endOtherSessions(), 1); // the laptop
    await assert.rejects(laptop.auth.account(), (e: unknown) => e instanceof PlatformError && e.status === 401);
    assert.deepEqual((await phone.auth.sessions()).map((s) => s.current), [true]);
  });

  it('ending sessions goes through the revocation path: the other devices’ sockets close with session_revoked', async () => {
    const email = uniqueEmail('sockets');
    const phone = tp.client();
    await phone.auth.register({ email, password: PASSWORD });
    await phone.social.changeName('Sockets');
    const open = async () => {
      const c = tp.client();
      await c.auth.signInWithEmail({ email, password: PASSWORD });
      const rt = c.realtime({});
      await rt.connect();
      return { c, rt };
    };
    const pc = await open();
    const tablet = await open();
    const console_ = await open();
    try {
      // The PC's session id, as the PC sees it; the phone ends it.
      const pcSession = (await pc.c.auth.sessions()).find((s) => s.current)!;
      assert.equal((await phone.auth.sessions()).length, 4);
      const pcClosed = pc.rt.next('close');
      await phone.auth.endSession(pcSession.id);
      assert.deepEqual(await pcClosed, { code: 4002, reason: 'session_revoked', willReconnect: false });
      assert.equal(tablet.rt.connected, true);
      const closes = [tablet.rt.next('close'), console_.rt.next('close')];
      assert.equal(await phone.auth.endOtherSessions(), 2);
      for (const closed of await Promise.all(closes)) assert.deepEqual(closed, { code: 4002, reason: 'session_revoked', willReconnect: false });
      assert.equal(await tablet.c.session.isSignedIn(), false);
      assert.match((await phone.social.me()).fullHandle, /^Sockets#\d{4}$/); // the phone's own session is untouched
    } finally {
      for (const d of [pc, tablet, console_]) d.rt.close();
    }
  });

  it('a console signs in with a code the player approves on the phone (slow_down handled)', async () => {
    const phone = tp.client();
    await phone.auth.register({ email: uniqueEmail('approver'), password: PASSWORD });
    const tv = tp.client({ platform: 'console' });
    const start = await tv.auth.startDeviceSignIn({ clientId: 'tv-app', deviceName: 'Living room' });
    assert.match(start.userCode, /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    assert.ok(start.verificationUriComplete.endsWith(`/device?user_code=${start.userCode}`));
    assert.equal(start.interval, 1);

    const seen = await phone.auth.lookupDeviceCode(start.userCode);
    assert.deepEqual([seen.client_id, seen.device_name, seen.platform], ['tv-app', 'Living room', 'console']);

    // The waits are the test's: the second poll comes at once (the service answers slow_down, the SDK adds 5 s to
    // its interval), and the player approves during the third wait.
    const waits: number[] = [];
    const signedIn = await tv.auth.completeDeviceSignIn(start, {
      sleep: async (ms) => {
        waits.push(ms);
        if (waits.length === 3) await phone.auth.approveDevice(start.userCode);
      },
    });
    assert.deepEqual(waits, [1000, 1000, 6000]);
    const me = await phone.auth.account();
    assert.equal(signedIn.accountId, me.id);
    assert.equal((await tv.auth.account()).id, me.id);
    const tvSession = (await phone.auth.sessions()).find((s) => s.auth_method === 'device_code')!;
    assert.deepEqual([tvSession.client_id, tvSession.device.name, tvSession.device.platform], ['tv-app', 'Living room', 'console']);
    // The console refreshes like any client.
    await tv.session.refresh();
    assert.equal((await tv.auth.account()).id, me.id);
  });

  it('a denied code rejects the poll with access_denied; an aborted poll stops', async () => {
    const phone = tp.client();
    await phone.auth.signInAsGuest();
    const tv = tp.client();
    const start = await tv.auth.startDeviceSignIn({ clientId: 'tv-app' });
    await phone.auth.denyDevice(start.userCode);
    await rejects(tv.auth.completeDeviceSignIn(start, { sleep: async () => {} }), 400, 'access_denied');
    assert.equal(await tv.session.isSignedIn(), false);
    await rejects(phone.auth.approveDevice(start.userCode), 404, 'user_code_not_found');

    const again = await tv.auth.startDeviceSignIn({ clientId: 'tv-app' });
    const ctrl = new AbortController();
    ctrl.abort(new Error('player left the screen'));
    await assert.rejects(tv.auth.completeDeviceSignIn(again, { signal: ctrl.signal }), /player left the screen/);
  });
});
