// Email and password: sign-up, login, policy, lockout (423) versus rate limit (429), races.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { harness, useHarness, register, email, GOOD_PASSWORD, type Harness, assertError } from './support/harness.js';

describe('sign-up and login', () => {
  const h = useHarness({ AUTH_LOCKOUT_THRESHOLD: '5', AUTH_LOCKOUT_BASE_SECONDS: '30', AUTH_RATE_LOGIN_PER_IP_EMAIL: '50' });

  const login = (payload: Record<string, unknown>, ip = '10.0.0.1') => h.app.inject({ method: 'POST', url: '/login', payload, remoteAddress: ip });

  it('registers (201) and logs in (200) with tokens and account id', async () => {
    const e = email();
    const r = await h.app.inject({
      method: 'POST',
      url: '/register',
      payload: { email: e, password: GOOD_PASSWORD, display_name: 'Ada', device: { fingerprint: 'device-register-1', platform: 'ios' } },
    });
    assert.equal(r.statusCode, 201);
    const reg = r.json();
    assert.ok(reg.access_token && reg.refresh_token && reg.account_id);
    const l = await login({ email: e.toUpperCase(), password: GOOD_PASSWORD });
    assert.equal(l.statusCode, 200);
    assert.equal(l.json().account_id, reg.account_id);
    assert.equal(l.json().expires_in, 600);
    const acc = await h.app.inject({ method: 'GET', url: '/account', headers: { authorization: `Bearer ${l.json().access_token}` } });
    assert.equal(acc.json().display_name, 'Ada');
    assert.equal(acc.json().is_guest, false);
    assert.equal(acc.json().identities[0].provider_user_id, e);
    assert.equal(acc.json().devices[0].platform, 'ios');
    assert.doesNotMatch(acc.body, /argon2|secret_hash/);
  });

  it('a login with a device records the device on the account; the login resets failures and refreshes', async () => {
    const u = await register(h.app);
    assert.equal((await login({ email: u.email, password: 'wrong password here' })).statusCode, 401);
    const l = await login({ email: u.email, password: u.password, device: { fingerprint: 'device-login-1', platform: 'android' } });
    assert.equal(l.statusCode, 200);
    const acc = await h.app.inject({ method: 'GET', url: '/account', headers: { authorization: `Bearer ${l.json().access_token}` } });
    assert.deepEqual(
      acc.json().devices.map((d: { platform: string }) => d.platform),
      ['android'],
    );
    assert.ok(acc.json().identities[0].last_login_at, 'the identity carries the login time');
    const r = await h.app.inject({ method: 'POST', url: '/refresh', payload: { refresh_token: l.json().refresh_token } });
    assert.equal(r.statusCode, 200);
  });

  it('answers a wrong password and an unknown email alike: 401 invalid_credentials', async () => {
    const u = await register(h.app);
    const a = await login({ email: u.email, password: 'wrong password here' });
    const b = await login({ email: email(), password: 'wrong password here' });
    assert.equal(a.statusCode, 401);
    assert.equal(b.statusCode, 401);
    assert.equal(a.json().code, 'invalid_credentials');
    assert.equal(b.json().code, 'invalid_credentials');
    assert.equal(a.json().message, b.json().message);
  });

  it('refuses weak passwords with 400 weak_password', async () => {
    for (const [password, reason] of [
      ['short1', 'too_short'],
      ['x'.repeat(257), 'too_long'],
      ['1234567890', 'common'],
      ['Qwertyuiop', 'common'],
      ['iloveyou12', 'common'],
    ] as const) {
      const r = await h.app.inject({ method: 'POST', url: '/register', payload: { email: email(), password } });
      assert.equal(r.statusCode, 400, password);
      assert.equal(r.json().code, 'weak_password');
      assert.equal(r.json().reason, reason);
    }
  });

  it('409 email_taken, case-insensitively', async () => {
    const u = await register(h.app);
    const r = await h.app.inject({ method: 'POST', url: '/register', payload: { email: u.email.toUpperCase(), password: GOOD_PASSWORD } });
    assertError(r, 409, 'email_taken');
  });

  it('parallel sign-ups with one email: exactly one succeeds', async () => {
    const e = email();
    const rs = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        h.app.inject({ method: 'POST', url: '/register', payload: { email: i % 2 ? e : e.toUpperCase(), password: GOOD_PASSWORD }, remoteAddress: `10.1.0.${i}` }),
      ),
    );
    assert.deepEqual(rs.map((r) => r.statusCode).sort(), [201, 409, 409, 409, 409, 409, 409, 409]);
    const n = await h.tdb.db.query(`SELECT count(*)::int AS n FROM identities WHERE provider = 'email' AND provider_user_id = $1`, [e]);
    assert.equal(n.rows[0].n, 1);
  });

  it('locks the guessing source out after the threshold (423 + Retry-After), counting parallel failures exactly; the owner elsewhere signs in', async () => {
    const u = await register(h.app);
    const attacker = '10.2.0.7';
    const wrong = await Promise.all(Array.from({ length: 7 }, (_, i) => login({ email: u.email, password: `wrong-password-${i}` }, attacker)));
    for (const r of wrong) assert.ok([401, 423].includes(r.statusCode), r.body);
    const cred = await h.tdb.db.query(
      `SELECT c.failed_attempts FROM credentials c JOIN identities i ON i.id = c.identity_id WHERE i.provider_user_id = $1`,
      [u.email],
    );
    const counted = wrong.filter((r) => r.statusCode === 401).length;
    assert.equal(cred.rows[0].failed_attempts, counted, 'every wrong password that was checked is counted once');
    assert.ok(counted >= 5);
    // The guessing source is locked: even the right password from it is refused until the lock ends.
    const locked = await login({ email: u.email, password: u.password }, attacker);
    assertError(locked, 423, 'account_locked');
    const retry = Number(locked.headers['retry-after']);
    // base 30 s doubling per failure past the threshold: 30 * 2^(counted-5)
    assert.ok(retry > 0 && retry <= 30 * 2 ** (counted - 5), `retry-after ${retry}`);
    const audit = await h.tdb.db.query(`SELECT count(*)::int AS n FROM audit_log WHERE event = 'lockout' AND account_id = $1`, [u.account_id]);
    assert.ok(audit.rows[0].n >= 1);
    // The owner, from an address with no failures, is not locked out by the stranger and resets the count.
    const ok = await login({ email: u.email, password: u.password }, '10.2.1.2');
    assert.equal(ok.statusCode, 200);
    const after = await h.tdb.db.query(`SELECT c.failed_attempts FROM credentials c JOIN identities i ON i.id = c.identity_id WHERE i.provider_user_id = $1`, [u.email]);
    assert.equal(after.rows[0].failed_attempts, 0);
    // The attacker's source stays locked.
    assert.equal((await login({ email: u.email, password: 'another guess 1' }, attacker)).statusCode, 423);
    // Several strangers each guessing below the threshold lock nobody out.
    for (let i = 0; i < 8; i++) for (let k = 0; k < 4; k++) await login({ email: u.email, password: `guess-${i}-${k}` }, `10.3.0.${i}`);
    assert.equal((await login({ email: u.email, password: u.password }, '10.2.1.3')).statusCode, 200);
  });

  it('doubles the lock of a source that keeps guessing after its lock ends', async () => {
    const fast = await harness({ AUTH_LOCKOUT_THRESHOLD: '2', AUTH_LOCKOUT_BASE_SECONDS: '1', AUTH_LOCKOUT_MAX_SECONDS: '60' });
    try {
      const u = await register(fast.app);
      const attempt = (password: string) => fast.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password }, remoteAddress: '10.4.0.1' });
      assert.equal((await attempt('wrong guess 1')).statusCode, 401);
      assert.equal((await attempt('wrong guess 2')).statusCode, 401); // second failure: locked 1 s
      const first = await attempt('wrong guess 3');
      assert.equal(first.statusCode, 423);
      assert.equal(Number(first.headers['retry-after']), 1);
      await new Promise((r) => setTimeout(r, 1100));
      assert.equal((await attempt('wrong guess 4')).statusCode, 401); // third failure: locked 2 s
      const second = await attempt('wrong guess 5');
      assert.equal(second.statusCode, 423);
      assert.equal(Number(second.headers['retry-after']), 2);
    } finally {
      await fast.close();
    }
  });

  it('a login after no failure leaves the credential row unwritten; after a failure it resets the counter', async () => {
    const u = await register(h.app);
    const version = async () =>
      (
        await h.tdb.db.query<{ v: string; failed_attempts: number }>(
          `SELECT c.xmin::text AS v, c.failed_attempts FROM credentials c JOIN identities i ON i.id = c.identity_id WHERE i.provider_user_id = $1`,
          [u.email],
        )
      ).rows[0];
    const before = await version();
    assert.equal((await login({ email: u.email, password: u.password }, '10.4.0.1')).statusCode, 200);
    assert.deepEqual(await version(), before, 'the credential row was rewritten');
    assert.equal((await login({ email: u.email, password: 'not the password' }, '10.4.0.1')).statusCode, 401);
    assert.equal((await version()).failed_attempts, 1);
    assert.equal((await login({ email: u.email, password: u.password }, '10.4.0.1')).statusCode, 200);
    assert.equal((await version()).failed_attempts, 0);
  });

  it('audits login success and failure with node id and ip', async () => {
    const u = await register(h.app);
    await login({ email: u.email, password: 'not the password' }, '10.3.0.9');
    await login({ email: u.email, password: u.password }, '10.3.0.9');
    const rows = (await h.tdb.db.query(`SELECT event, ip, node_id, detail FROM audit_log WHERE account_id = $1 AND ip = '10.3.0.9' ORDER BY at`, [u.account_id])).rows;
    assert.deepEqual(rows.map((r) => [r.event, r.detail.outcome]), [['login', 'failure'], ['login', 'success']]);
    assert.ok(rows.every((r) => r.node_id === 'node-a'));
  });

  it('bad input: 4xx with a code', async () => {
    const cases: [string, unknown, number, string][] = [
      ['/login', {}, 400, 'validation_failed'],
      ['/login', { email: 'not-an-email', password: 'x' }, 400, 'validation_failed'],
      ['/login', { email: email(), password: 12 }, 400, 'validation_failed'],
      ['/login', { email: email(), password: 'x', extra: 1 }, 400, 'validation_failed'],
      ['/login', { email: email(), password: 'x'.repeat(2000) }, 400, 'validation_failed'],
      ['/register', { email: email() }, 400, 'validation_failed'],
      ['/register', { email: email(), password: GOOD_PASSWORD, device: { fingerprint: 'abcdefgh', platform: 'amiga' } }, 400, 'validation_failed'],
      ['/register', { email: email(), password: GOOD_PASSWORD, display_name: '' }, 400, 'validation_failed'],
    ];
    for (const [url, payload, status, code] of cases) {
      const r = await h.app.inject({ method: 'POST', url, payload: payload as object, remoteAddress: '10.4.0.1' });
      assert.equal(r.statusCode, status, `${url} ${JSON.stringify(payload)}: ${r.body}`);
      assert.equal(r.json().code, code);
    }
    const malformed = await h.app.inject({ method: 'POST', url: '/login', headers: { 'content-type': 'application/json' }, payload: '{"email":' });
    assert.equal(malformed.json().code, 'malformed_json');
    const big = await h.app.inject({ method: 'POST', url: '/register', payload: { email: email(), password: 'p'.repeat(70_000) } });
    assert.equal(big.statusCode, 413);
  });
});

describe('rate limit (429) comes before the password check and the lockout (423)', () => {
  const h = useHarness({ AUTH_RATE_LOGIN_PER_IP_EMAIL: '3', AUTH_RATE_LOGIN_PER_IP: '1000', AUTH_LOCKOUT_THRESHOLD: '100' });

  it('429 rate_limited with Retry-After after the per IP+email limit, even for the right password', async () => {
    const u = await register(h.app); // counts one hit for this IP+email (sign-up shares the login limits)
    const ip = '10.9.9.9';
    for (let i = 0; i < 3; i++) {
      const r = await h.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: 'wrong password!' }, remoteAddress: ip });
      assert.equal(r.statusCode, 401);
    }
    const r = await h.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: u.password }, remoteAddress: ip });
    assertError(r, 429, 'rate_limited');
    assert.ok(Number(r.headers['retry-after']) >= 1);
    // Another caller is not affected.
    const other = await h.app.inject({ method: 'POST', url: '/login', payload: { email: u.email, password: u.password }, remoteAddress: '10.9.9.10' });
    assert.equal(other.statusCode, 200);
  });
});

describe('production password hashing parameters', () => {
  it('stores Argon2id with m=19456, t=2, p=1 by default', async () => {
    const h = await harness({ AUTH_PASSWORD_MEMORY_KIB: '', AUTH_PASSWORD_TIME_COST: '', AUTH_PASSWORD_PARALLELISM: '' });
    try {
      const u = await register(h.app);
      const row = await h.tdb.db.query(`SELECT c.secret_hash FROM credentials c JOIN identities i ON i.id = c.identity_id WHERE i.provider_user_id = $1`, [u.email]);
      assert.match(row.rows[0].secret_hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    } finally {
      await h.close();
    }
  });
});

describe('guest secret hashing parameters', () => {
  const guestHash = async (h: Harness, accountId: string) =>
    (await h.tdb.db.query<{ secret_hash: string }>(`SELECT c.secret_hash FROM credentials c JOIN identities i ON i.id = c.identity_id WHERE i.provider = 'guest' AND i.provider_user_id = $1`, [accountId])).rows[0]
      .secret_hash;
  const guest = async (h: Harness, fingerprint: string) => {
    const r = await h.app.inject({ method: 'POST', url: '/guest', payload: { device_fingerprint: fingerprint } });
    assert.equal(r.statusCode, 200);
    return r.json() as { account_id: string; guest_secret: string };
  };
  const restore = (h: Harness, g: { account_id: string; guest_secret: string }, secret = g.guest_secret) =>
    h.app.inject({ method: 'POST', url: '/guest/restore', payload: { account_id: g.account_id, guest_secret: secret, device_fingerprint: 'restore-params-device' } });

  it('stores Argon2id with m=256, t=1, p=1 by default, and with AUTH_GUEST_SECRET_* when set', async () => {
    const h = await harness();
    const tuned = await harness({ AUTH_GUEST_SECRET_MEMORY_KIB: '1024', AUTH_GUEST_SECRET_TIME_COST: '2' });
    try {
      const g = await guest(h, 'guest-params-default');
      assert.match(await guestHash(h, g.account_id), /^\$argon2id\$v=19\$m=256,t=1,p=1\$/);
      const t = await guest(tuned, 'guest-params-tuned');
      assert.match(await guestHash(tuned, t.account_id), /^\$argon2id\$v=19\$m=1024,t=2,p=1\$/);
    } finally {
      await Promise.all([h.close(), tuned.close()]);
    }
  });

  it('guest secrets hashed with other parameters (the earlier m=4096) still restore', async () => {
    const old = await harness({ AUTH_GUEST_SECRET_MEMORY_KIB: '4096' });
    try {
      const g = await guest(old, 'guest-params-old');
      assert.match(await guestHash(old, g.account_id), /^\$argon2id\$v=19\$m=4096,t=1,p=1\$/);
      // A node with the new default on the same database.
      const now = await old.node({ AUTH_GUEST_SECRET_MEMORY_KIB: '' });
      assert.equal((await restore({ ...old, app: now }, g)).statusCode, 200);
      const wrong = await restore({ ...old, app: now }, g, g.guest_secret.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')));
      assertError(wrong, 401, 'invalid_credentials');
    } finally {
      await old.close();
    }
  });

  it('refuses a memory cost below the Argon2 minimum, naming the variable', async () => {
    const { readAuthConfig } = await import('../src/config.js');
    assert.throws(() => readAuthConfig({ AUTH_MASTER_KEY: 'a'.repeat(64), AUTH_GUEST_SECRET_MEMORY_KIB: '4' }), /AUTH_GUEST_SECRET_MEMORY_KIB/);
  });
});

describe('the general per-IP limit covers every route, whatever its own limits', () => {
  const h = useHarness({ AUTH_RATE_GENERAL_PER_IP: '3' });

  const post = (url: string, payload: unknown, ip: string) => h.app.inject({ method: 'POST', url, payload: payload as object, remoteAddress: ip });

  it('/login (body-keyed limits, checked after validation together with the general one)', async () => {
    const ip = '10.20.0.1';
    for (let i = 0; i < 3; i++) assert.equal((await post('/login', { email: email(), password: 'wrong password!' }, ip)).statusCode, 401);
    const r = await post('/login', { email: email(), password: 'wrong password!' }, ip);
    assertError(r, 429, 'rate_limited');
    assert.ok(Number(r.headers['retry-after']) >= 1);
    // On these routes the body is validated first: a malformed one is still a 400, not counted.
    assert.equal((await post('/login', { email: 'not an email', password: 'x' }, ip)).statusCode, 400);
  });

  it('/refresh (address-keyed limits, checked with the general one before the body is read)', async () => {
    const ip = '10.20.0.2';
    for (let i = 0; i < 3; i++) assert.equal((await post('/refresh', { refresh_token: 'unknown-token' }, ip)).statusCode, 401);
    assert.equal((await post('/refresh', { refresh_token: 'unknown-token' }, ip)).statusCode, 429);
    assert.equal((await post('/refresh', { bad: 1 }, ip)).statusCode, 429, 'even a malformed request is refused first');
  });

  it('/guest shares the window with the other routes of the address', async () => {
    const ip = '10.20.0.3';
    assert.equal((await post('/refresh', { refresh_token: 'unknown-token' }, ip)).statusCode, 401);
    assert.equal((await post('/guest', { device_fingerprint: 'general-limit-device-1' }, ip)).statusCode, 200);
    assert.equal((await post('/guest', { device_fingerprint: 'general-limit-device-2' }, ip)).statusCode, 200);
    assert.equal((await post('/guest', { device_fingerprint: 'general-limit-device-3' }, ip)).statusCode, 429);
    // Another address is not affected.
    assert.equal((await post('/guest', { device_fingerprint: 'general-limit-device-4' }, '10.20.0.4')).statusCode, 200);
  });
});
