// register-user's sign-in limits across the registry and a real auth (issue 25, item 4; docs/auth.md, "Rate limits"):
// a game server names each player's address (X-Platform-Player-Ip, trusted only with valid game credentials), so
// auth's per-address limits and lockout sources count the player, and a limit of its own counts the game: one
// player's failures never refuse the game's other players, and one game's flood never refuses another game.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startPlatform, type Platform } from '../src/index.js';

const PASSWORD = 'correct horse battery staple 42';
const WRONG = 'a wrong but long password 77';
let n = 0;
const email = () => `limits${++n}.${randomBytes(3).toString('hex')}@e2e.test`;

describe('register-user limits per player address and per game', () => {
  let p: Platform;
  let devToken: string;

  async function newGame() {
    const g = await p.registry.call('POST', '/games', { token: devToken, body: { DisplayName: `Game ${randomBytes(2).toString('hex')}` } });
    assert.equal(g.status, 201, JSON.stringify(g.body));
    return { 'x-platform-api-key': g.body.Game.ApiKey as string, 'x-platform-api-secret': g.body.ApiSecret as string };
  }
  const register = (game: Record<string, string>, body: unknown, playerIp?: string) =>
    p.registry.call('POST', '/games/register-user', { body, headers: { ...game, ...(playerIp ? { 'x-platform-player-ip': playerIp } : {}) } });

  before(async () => {
    p = await startPlatform({
      authEnv: { AUTH_LOCKOUT_THRESHOLD: '3', AUTH_RATE_LOGIN_PER_IP: '8', AUTH_RATE_LOGIN_PER_IP_EMAIL: '100', AUTH_RATE_GENERAL_PER_GAME: '45' },
    });
    const dev = await p.registry.call('POST', '/developers/register', { body: { Email: email(), Password: PASSWORD, DisplayName: 'Dev' } });
    assert.equal(dev.status, 201);
    devToken = dev.body.Token;
  });
  after(() => p.close());

  it("an attacker's wrong passwords through a game lock the victim's email for the attacker's address only", async () => {
    const game = await newGame();
    const victim = email();
    assert.equal((await register(game, { Email: victim, Password: PASSWORD }, '203.0.113.50')).status, 200);
    const codes: number[] = [];
    for (let i = 0; i < 5; i++) codes.push((await register(game, { Email: victim, Password: WRONG }, '198.51.100.66')).status);
    assert.ok(codes.includes(423), `the attacker's address is locked out: ${codes}`);
    // The victim, through the same game from their own address, signs in.
    const own = await register(game, { Email: victim, Password: PASSWORD }, '203.0.113.50');
    assert.equal(own.status, 200, JSON.stringify(own.body));
    // So does the victim straight at auth.
    assert.equal((await p.auth.call('POST', '/login', { body: { email: victim, password: PASSWORD } })).status, 200);
  });

  it("one player's flood of sign-ins answers 429 to that player only; the game's other players go on", async () => {
    const game = await newGame();
    const player = email();
    assert.equal((await register(game, { Email: player, Password: PASSWORD }, '192.0.2.10')).status, 200);
    let limited = false;
    for (let i = 0; i < 12 && !limited; i++) limited = (await register(game, { Email: email(), Password: WRONG.slice(0, 5) }, '192.0.2.99')).status === 429;
    const last = await register(game, { Email: email(), Password: PASSWORD }, '192.0.2.99');
    assert.equal(last.status, 429, JSON.stringify(last.body));
    assert.equal(last.body.Code, 'rate_limited');
    const other = await register(game, { Email: player, Password: PASSWORD }, '192.0.2.10');
    assert.equal(other.status, 200, JSON.stringify(other.body));
  });

  it("a game's own limit counts every address it names; another game is not refused", async () => {
    const flooded = await newGame();
    const calm = await newGame();
    let status = 0;
    for (let i = 0; i < 40 && status !== 429; i++) status = (await register(flooded, { Email: email(), Password: PASSWORD }, `198.18.${i}.1`)).status;
    assert.equal(status, 429, 'the game that named 40 addresses reached its own limit');
    const fine = await register(calm, { Email: email(), Password: PASSWORD }, '198.18.200.1');
    assert.equal(fine.status, 200, JSON.stringify(fine.body));
  });

  it('X-Platform-Player-Ip must be an address; it is read only with valid game credentials', async () => {
    const game = await newGame();
    for (const bad of ['not-an-ip', '999.1.1.1', '10.0.0.1, 10.0.0.2']) {
      const r = await register(game, { Email: email(), Password: PASSWORD }, bad);
      assert.equal(r.status, 400, bad);
      assert.equal(r.body.Code, 'validation_failed');
    }
    const forged = await register({ ...game, 'x-platform-api-secret': 'wrong' }, { Email: email(), Password: PASSWORD }, '192.0.2.1');
    assert.deepEqual([forged.status, forged.body.Code], [401, 'invalid_api_key']);
    // An IPv6 address is an address.
    assert.equal((await register(game, { Email: email(), Password: PASSWORD }, '2001:db8::7')).status, 200);
  });
});
