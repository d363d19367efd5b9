/**
 * Baseline of the login figure: raw Argon2id verifies (@node-rs/argon2, the
 * kit's library) with the service's parameters, at the same concurrency.
 * Argument: { memoryCost, timeCost, parallelism, connections, durationSec }.
 */
import { hash, verify } from '@node-rs/argon2';

const a = JSON.parse(process.argv[2]) as { memoryCost: number; timeCost: number; parallelism: number; connections: number; durationSec: number };
const password = 'correct horse battery staple 42';
const encoded = await hash(password, { memoryCost: a.memoryCost, timeCost: a.timeCost, parallelism: a.parallelism, algorithm: 2 });
const end = Date.now() + a.durationSec * 1000;
let done = 0;
await Promise.all(
  Array.from({ length: a.connections }, async () => {
    while (Date.now() < end) {
      if (!(await verify(encoded, password))) throw new Error('verify failed');
      done++;
    }
  }),
);
console.log(JSON.stringify({ rps: done / a.durationSec, requests: done }));
