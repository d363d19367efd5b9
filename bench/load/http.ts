/**
 * HTTP load generator (autocannon, one process). Argument: JSON
 * { url, connections, durationSec, scenario, ...scenario data }.
 * Scenarios: constant (fixed body), guest (unique fingerprint per request),
 * refresh (chains refresh tokens: each response's token feeds a later request).
 * Prints { rps, p50, p99, requests, non2xx, errors }.
 */
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';

interface Args {
  url: string;
  connections: number;
  durationSec: number;
  scenario: 'constant' | 'guest' | 'refresh';
  method?: string;
  body?: unknown;
  /** Extra request headers (constant scenario), e.g. an Authorization header. */
  headers?: Record<string, string>;
  tokens?: string[];
}

const a: Args = JSON.parse(process.argv[2]);
const headers = { 'content-type': 'application/json' };
let requests: autocannon.Request[];

if (a.scenario === 'constant') {
  requests = [{ method: (a.method ?? 'POST') as 'POST', body: a.body === undefined ? undefined : JSON.stringify(a.body), headers: { ...headers, ...a.headers } }];
} else if (a.scenario === 'guest') {
  const prefix = randomBytes(6).toString('hex');
  let n = 0;
  requests = [
    {
      method: 'POST',
      headers,
      setupRequest: (req) => ({ ...req, body: JSON.stringify({ device_fingerprint: `bench-${prefix}-${n++}`, platform: 'linux' }) }),
    },
  ];
} else {
  // One spare token per connection at all times: a response pushes its new token before the next request is built.
  const queue = [...(a.tokens ?? [])];
  requests = [
    {
      method: 'POST',
      headers,
      setupRequest: (req) => {
        const t = queue.shift();
        if (!t) throw new Error('refresh token queue empty');
        return { ...req, body: JSON.stringify({ refresh_token: t }) };
      },
      onResponse: (status, body) => {
        if (status === 200) queue.push(JSON.parse(body).refresh_token);
      },
    },
  ];
}

const r = await autocannon({
  url: a.url,
  connections: a.connections,
  duration: a.durationSec,
  pipelining: 1,
  requests,
});
console.log(
  JSON.stringify({
    rps: r.requests.average,
    requests: r.requests.total,
    ok: r['2xx'],
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    p50: r.latency.p50,
    p99: r.latency.p99,
    okPerSec: r['2xx'] / a.durationSec,
  }),
);
