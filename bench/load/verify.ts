/**
 * Access-token verification, one process, one core, awaited one at a time:
 * the kit's createAccessTokenVerifier (what social runs per request and per
 * socket) against raw node:crypto Ed25519 verify of the same signed bytes with
 * a cached KeyObject. Argument: { format: 'paseto'|'jwt', durationSec }.
 */
import { generateKeyPairSync, randomUUID, verify as edVerify } from 'node:crypto';
import { createAccessTokenVerifier, paserkPid, rawPublicKey, signAccessToken, staticKeyResolver } from '../../packages/kit/src/index.js';

const a = JSON.parse(process.argv[2]) as { format: 'paseto' | 'jwt'; durationSec: number };
const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const kid = paserkPid(rawPublicKey(publicKey));
const iat = Math.floor(Date.now() / 1000);
const token = await signAccessToken(a.format, { kid, privateKey }, 'https://auth.bench', 'game-platform', {
  sub: randomUUID(),
  sid: randomUUID(),
  platform: 'guest',
  roles: ['player'],
  region: 'eu',
  jti: randomUUID(),
  iat,
  exp: iat + 600,
});
// The key set is built once, as social's remote key set is (fetched, then looked up); a new Map per call
// would measure the bench's own allocation.
const keySet = new Map([[kid, publicKey]]);
const verifier = createAccessTokenVerifier({
  issuer: 'https://auth.bench',
  audience: 'game-platform',
  keys: staticKeyResolver(() => keySet),
});

// The signed bytes and signature, exactly as each format defines them.
let message: Buffer;
let signature: Buffer;
if (a.format === 'jwt') {
  const [h, p, s] = token.split('.');
  message = Buffer.from(`${h}.${p}`);
  signature = Buffer.from(s, 'base64url');
} else {
  const [, , body, footer] = token.split('.');
  const raw = Buffer.from(body, 'base64url');
  const m = raw.subarray(0, raw.length - 64);
  signature = raw.subarray(raw.length - 64);
  const f = Buffer.from(footer, 'base64url');
  const le64 = (n: number) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    return b;
  };
  const pieces = [Buffer.from('v4.public.'), m, f, Buffer.alloc(0)];
  message = Buffer.concat([le64(pieces.length), ...pieces.flatMap((x) => [le64(x.length), x])]);
}
if (!edVerify(null, message, publicKey, signature)) throw new Error('baseline message reconstruction is wrong');
await verifier(token); // warm: key conversion, JIT

// Interleaved 100 ms slices, so load from other processes on the machine hits both sides alike.
const rawVerify = () => {
  if (!edVerify(null, message, publicKey, signature)) throw new Error('bad');
};
const kitVerify = () => verifier(token);
const count = { raw: 0, kit: 0 };
const time = { raw: 0, kit: 0 };
const end = performance.now() + a.durationSec * 1000;
while (performance.now() < end) {
  for (const side of ['raw', 'kit'] as const) {
    const fn = side === 'raw' ? rawVerify : kitVerify;
    const t0 = performance.now();
    const stop = t0 + 100;
    let n = 0;
    while (performance.now() < stop) {
      for (let i = 0; i < 20; i++) await fn();
      n += 20;
    }
    count[side] += n;
    time[side] += performance.now() - t0;
  }
}
console.log(JSON.stringify({ rps: (count.kit / time.kit) * 1000, baseline: (count.raw / time.raw) * 1000 }));
