/**
 * The WebSocket channel, GET /v1/ws (docs/social-realtime.md): the `ws`
 * package in noServer mode on the Fastify server's `upgrade` event, wired from
 * its parts: upgrade.ts (authentication and caps before the handshake),
 * lifecycle.ts (a socket's life), client-frames.ts (what clients send),
 * fanout.ts with hub.ts and relations-cache.ts (events to sockets),
 * heartbeat.ts (pings, drain) and presence-tracker.ts (who is connected).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { App, LogRetention, StateStore } from '@platform/kit';
import type { Authenticator } from '../services/auth.js';
import type { Ctx } from '../context.js';
import type { Revocations } from '../services/revocations.js';
import type { TenancyResolver } from '../adapters/registry-client.js';
import { createFrameHandler } from './client-frames.js';
import { CLOSE, closeConn, createSender, refuseSocket, type Connection, type Sender } from './connection.js';
import { createConnections } from './lifecycle.js';
import { createFanout, eventFrame } from './fanout.js';
import { followGameCredentials, refusedCredential } from './game-credentials.js';
import { closeAllSockets, startPinger } from './heartbeat.js';
import { createPresenceTracker, type PresenceTracker } from './presence-tracker.js';
import { createRelationsCache } from './relations-cache.js';
import { createUpgradeHandler } from './upgrade.js';
import { createReplayer, resumeFrom } from './replay.js';
import { replayRetention } from '../services/events.js';
import { closeRevokedSockets } from './revoked-sockets.js';

export { CLOSE } from './connection.js';
export { socketToken, WS_PATH } from './upgrade.js';

/**
 * The HTTP idle timeout (kit, `connectionTimeout`) gave the socket a timer, which ws clears at the upgrade
 * (`setTimeout(0)`); Node keeps the cleared Timeout on the socket for its life, ~120 B a WebSocket. Dropped here.
 */
function dropSpentTimer(socket: Duplex): void {
  const held = socket as unknown as Record<symbol, { _onTimeout?: unknown } | null>;
  const key = Object.getOwnPropertySymbols(held).find((k) => k.description === 'timeout');
  if (key && held[key] && held[key]._onTimeout === null) held[key] = null;
}

export interface Realtime {
  readonly tracker: PresenceTracker;
  /** Open sockets on this node. */
  connections(): number;
  /** Channels this node is subscribed to. */
  subscribedChannels(): string[];
  /** Refuses new connections (4503 shutting_down) and closes every socket with 1001. */
  drain(): Promise<void>;
}

export function attachRealtime(app: App, ctx: Ctx, deps: { authenticator: Authenticator; tenancy: TenancyResolver; bus: StateStore; revocations?: Revocations }): Realtime {
  const { config } = ctx;
  const log = app.log;
  const tracker = createPresenceTracker(ctx, log);
  const wss = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    perMessageDeflate: false,
    maxPayload: config.wsMaxFrameBytes,
    handleProtocols: (protocols) => (protocols.has('bearer') ? 'bearer' : false),
  });
  let draining = false;
  const sender = createSender({ sendBufferBytes: config.wsSendBufferBytes, log, metrics: ctx.metrics });
  const relations = createRelationsCache(ctx, log);
  const fanout = createFanout(ctx, log, sender, relations);
  const onMessage = createFrameHandler({ ctx, log, sender, tracker, authenticator: deps.authenticator });
  const retention = replayRetention(config);
  const replayer = retention && createReplayer({ ctx, sender, dispatch: fanout.replayDispatch, retention });
  const connections = createConnections({ ctx, log, tracker, fanout, sender, ...(replayer ? { replayer } : {}), onMessage, draining: () => draining });
  // Refused sockets between their error frame and the end of the closing handshake (cut on drain).
  const refusing = new Set<WebSocket>();
  const upgrade = createUpgradeHandler({
    ctx,
    log,
    ...deps,
    draining: () => draining,
    accept: (req, socket, head, user, game, principal) =>
      wss.handleUpgrade(req, socket, head, (ws) => {
        dropSpentTimer(socket);
        // The count is released by the TCP socket's close (upgrade.ts), which every WebSocket close comes with.
        const conn = connections.open(ws, user, game, principal, resumeFrom(req));
        // A revocation that arrived while this upgrade's token was being checked (API-key callers carry no token).
        if (principal.sid && deps.revocations?.revokedHere(principal)) closeConn(conn, CLOSE.sessionRevoked, 'session_revoked');
      }),
    revokedCredential: (game) => refusedCredential(deps.tenancy, game),
    shed: () => ctx.metrics.upgradeShed(),
    refuse: (req, socket, head, refusal) =>
      wss.handleUpgrade(req, socket, head, (ws) => {
        refusing.add(ws);
        ws.once('close', () => refusing.delete(ws));
        ws.on('error', () => {});
        refuseSocket(ws, refusal);
      }),
  });
  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    void upgrade(req, socket, head);
  });
  const credentials = followGameCredentials({ bus: deps.bus, tenancy: deps.tenancy, log, sender, connections: connections.all, textFilters: ctx.textFilters });
  deps.revocations?.onRevoked((r) => {
    const closed = closeRevokedSockets(connections.all, r);
    if (closed) log.info({ closed, reason: r.reason }, 'sockets closed on a revocation');
  });
  const stopResyncing = resyncOnInterruption(ctx, connections.all, sender, retention);
  const stopPinger = startPinger(connections.all, config.wsPingSeconds * 1000);
  tracker.start();

  const realtime: Realtime = {
    tracker,
    connections: () => connections.all.size,
    subscribedChannels: () => fanout.hub.subscribedChannels(),
    async drain() {
      if (draining) return;
      draining = true;
      tracker.stop();
      stopPinger();
      stopResyncing();
      await closeAllSockets(connections.all);
      for (const ws of refusing) ws.terminate();
      await connections.settled();
      await relations.close();
      await fanout.close();
      await (await credentials)?.().catch(() => {});
    },
  };
  app.addHook('preClose', async () => {
    await realtime.drain();
  });
  return realtime;
}

/**
 * The store's subscriptions were lost and are live again (a Redis failover or restart): events published
 * meanwhile may never have reached this node, so every socket here is told `resync` (reason `interrupted`)
 * instead of living with a silent gap; the socket stays open. The frame carries the log's head as its id
 * when the replay log is on, so a later resume starts after the reload.
 */
function resyncOnInterruption(ctx: Ctx, all: ReadonlySet<Connection>, sender: Sender, retention: LogRetention | undefined): () => void {
  return ctx.state.onInterrupted(() => {
    void (async () => {
      const head = retention ? await ctx.state.logRead([], retention, 0).then((r) => r.head, () => undefined) : undefined;
      const frame = eventFrame('resync', { reason: 'interrupted' }, head);
      for (const conn of all) {
        ctx.metrics.resync();
        sender.send(conn, frame, head);
      }
    })();
  });
}
