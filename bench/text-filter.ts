/**
 * The text filter's cost on party chat (docs/social.md, "Text filter"; issue 30): deliveries/s of the `ws-fanout`
 * party chat (40 parties of 51, closed loop) with the game's filter on (mode mask, a deny list of 100 words)
 * against the same node and parties with the filter off, in alternating slices of one run (off on on off on off off on). "Off":
 * the users' sockets opened with the client key of a game whose filter mode is `off`; "on": with the client key of a
 * game in mask mode, so each message goes through the filter (clean text, the common case: the match runs, nothing
 * is masked). Both sides do the same game-context work; only the filter differs. The
 * registry runs as its own process; the node and the registry have their own schemas.
 */
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { freePort, request, startProcess } from './lib.js';
import { API_KEY, FANOUT_GROUPS, fanout, parties, startSocialNode, type FanoutResult, type Out, type SocketContext } from './sockets.js';

const SLICE_SEC = Number(process.env.BENCH_FILTER_SLICE_SEC ?? 5);
/** Balanced order (ABBA BAAB): a drift over the run (warm-up, the machine's other work) weighs on both sides alike. */
const SLICES = ['off', 'on', 'on', 'off', 'on', 'off', 'off', 'on'] as const;
/** A chat line of ordinary length; `{ts}` is the send time the clients read back. */
const BODY = 'good game everyone, regroup at the north base and wait for the boss ts={ts}';
const nodeArgs = process.env.BENCH_SERVICE_NODE_ARGS ? process.env.BENCH_SERVICE_NODE_ARGS.split(' ') : [];

async function startRegistry(ctx: SocketContext): Promise<string> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = {
    ...ctx.common,
    DATA_DIR: path.join(ctx.dataDir, 'filter-registry'),
    BENCH_REGISTRY_PORT: String(port),
    REGISTRY_DB_SCHEMA: 'filter_registry',
    REGISTRY_MASTER_KEY: randomBytes(32).toString('hex'),
    REGISTRY_ADMIN_PASSWORD: randomBytes(12).toString('hex'),
  };
  ctx.procs.push(await startProcess('filter-registry', 'bench/services/registry.ts', env, `${url}/readyz`, nodeArgs));
  return url;
}

/** A game with the filter in `mode` and a deny list of 100 words; returns its client key. */
async function filteredGame(registry: string, mode: 'mask' | 'off'): Promise<string> {
  const dev = await request(`${registry}/developers/register`, {
    body: { Email: `filter-${randomBytes(4).toString('hex')}@example.com`, Password: randomBytes(12).toString('hex'), DisplayName: 'Bench' },
  });
  if (dev.status !== 201) throw new Error(`developer: ${dev.status} ${JSON.stringify(dev.body)}`);
  const headers = { authorization: `Bearer ${dev.body.Token}` };
  const game = await request(`${registry}/games`, { body: { DisplayName: 'Text filter bench' }, headers });
  if (game.status !== 201) throw new Error(`game: ${game.status} ${JSON.stringify(game.body)}`);
  const deny = Array.from({ length: 100 }, (_, i) => `griefword${i}`);
  const set = await request(`${registry}/games/${game.body.Game.GameId}/text-filter`, { method: 'PUT', body: { Mode: mode, AllowList: ['cockpit'], DenyList: deny }, headers });
  if (set.status !== 200) throw new Error(`text filter: ${set.status} ${JSON.stringify(set.body)}`);
  return game.body.Game.ClientKey as string;
}

export async function textFilterFigures(ctx: SocketContext): Promise<Out[]> {
  const registry = await startRegistry(ctx);
  // Both sides in a game context (the same tenancy work, presence views, cache): only the filter's mode differs.
  const clientKey = await filteredGame(registry, 'mask');
  const offKey = await filteredGame(registry, 'off');
  const node = await startSocialNode(ctx, 'social-filter', { SOCIAL__DATABASE__SCHEMA: 'social_filter', SOCIAL__REGISTRY__URL: registry });
  try {
    const frames = Object.fromEntries(Object.entries(await parties(node.http, FANOUT_GROUPS)).map(([g, f]) => [g, f.replace('ts={ts}', BODY)]));
    const common = { serverPids: [node.proc.pid], groups: [0, FANOUT_GROUPS] as [number, number], durationSec: SLICE_SEC, apiKey: API_KEY, frames };
    const urls = { off: `${node.ws}?clientKey=${encodeURIComponent(offKey)}`, on: `${node.ws}?clientKey=${encodeURIComponent(clientKey)}` };
    const slices: { filter: 'off' | 'on'; perSec: number; errors: number }[] = [];
    for (const filter of SLICES) {
      const r: FanoutResult = await fanout({ ...common, url: urls[filter] });
      slices.push({ filter, perSec: r.perSec, errors: r.errors });
    }
    const mean = (k: 'off' | 'on') => slices.filter((s) => s.filter === k).reduce((a, s) => a + s.perSec, 0) / (SLICES.length / 2);
    const [on, off] = [mean('on'), mean('off')];
    const errors = slices.reduce((n, s) => n + s.errors, 0);
    ctx.log(`party chat, text filter on ${Math.round(on)}/s, off ${Math.round(off)}/s (${Math.round((100 * on) / off)}%), ${errors} error frames`);
    return [
      {
        id: 'chat-filter',
        figure: `party-chat deliveries / s with the game's text filter on (mask, 100 deny words; ${FANOUT_GROUPS} parties of 51, closed loop, slices ${SLICES.join('/')} of ${SLICE_SEC} s)`,
        value: on,
        unit: '/s',
        baselineName: 'the same node and parties, sockets of a game whose filter is off (the same game context work)',
        baseline: off,
        goal: '≥ 95% of the filter off',
        pass: errors === 0 && on >= 0.95 * off,
        note: errors ? `${errors} error frames` : undefined,
        extra: { slices },
      },
    ];
  } finally {
    await node.proc.stop();
  }
}
