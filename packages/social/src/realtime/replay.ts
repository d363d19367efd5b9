/**
 * Resume with replay (docs/social-realtime.md, "Resume and replay"). A socket is opened with its event frames
 * held at the gate (`conn.gate`); once its channels are live, this reads what the user missed after the id
 * the client sent (`?lastEventId=`) from the replay logs, writes it in id order through the usual dispatch
 * (the same filters, presence built for this socket's game context), then one `caughtUp` frame (or one
 * `resync` when the gap is not kept), then the held live frames the replay did not already cover. The read
 * returns the log's head id X: every event published before the read has an id ≤ X and is in the logs read,
 * every later one has a larger id and was held at the gate, so nothing is missed and nothing comes twice.
 */
import type { IncomingMessage } from 'node:http';
import { compareLogIds, isLogId, type LogEntry, type LogRetention } from '@platform/kit';
import type { Ctx } from '../context.js';
import { visiblePublicIds } from '../queries/relations.js';
import { EVENT_WIRE, partyChannel, replayLog, userChannel, type EventEnvelope } from '../services/events.js';
import type { Connection, Sender } from './connection.js';
import { eventFrame } from './fanout.js';
import { inIdOrder } from './ordering.js';
import type { Dispatch } from './hub.js';

/** The query parameter of `/v1/ws` that carries the last event id the client saw. */
export const RESUME_PARAM = 'lastEventId';

/** The resume id of an upgrade (`?lastEventId=`, first occurrence), as sent; undefined when there is none. */
export function resumeFrom(req: IncomingMessage): string | undefined {
  return new URL(req.url ?? '/', 'http://localhost').searchParams.get(RESUME_PARAM) ?? undefined;
}

/** Why a socket is told to reload: its gap is not kept, its resume id is not one of ours, or the store's subscriptions were lost. */
export type ResyncReason = 'expired' | 'invalid' | 'interrupted';

interface Replayed {
  id: string;
  channel: string;
  env: EventEnvelope;
}

/** A party's stretches of membership after the resume id: entries with from < id < to (to absent: still a member). */
type Windows = Map<string, { from: string; to?: string }[]>;

/**
 * Which parties the user was in after `after`, and when, from the `_partyChanged` control messages in their
 * own log (a join or create names the party joined, a leave the party left); the party the database says the
 * socket is in counts from `after` when the log says nothing about it.
 */
export function partyWindows(after: string, userEntries: readonly Replayed[], current: string | undefined): Windows {
  const windows: Windows = new Map();
  const list = (p: string) => windows.get(p) ?? (windows.set(p, []), windows.get(p)!);
  for (const e of userEntries) {
    if ((e.env.type as string) !== '_partyChanged') continue;
    const data = (e.env.data ?? {}) as { partyId?: string | null; leftPartyId?: string };
    if (data.leftPartyId) {
      const ws = list(data.leftPartyId);
      const open = ws.at(-1);
      if (open && open.to === undefined) open.to = e.id;
      else if (!ws.length) ws.push({ from: after, to: e.id });
    }
    if (data.partyId) list(data.partyId).push({ from: e.id });
  }
  if (current && !windows.has(current)) windows.set(current, [{ from: after }]);
  return windows;
}

const within = (ws: { from: string; to?: string }[], id: string) =>
  ws.some((w) => compareLogIds(w.from, id) < 0 && (w.to === undefined || compareLogIds(id, w.to) < 0));

/**
 * The entries as events (EVENT_WIRE: written by this release or the one before, docs/decisions/0020-versioned-messages.md);
 * undefined when one is unreadable (a version not read here): a gap, answered with resync, never skipped silently.
 */
function parsed(channel: string, entries: readonly LogEntry[]): Replayed[] | undefined {
  const out: Replayed[] = [];
  for (const e of entries) {
    const read = EVENT_WIRE.decode(e.entry);
    if (!read.ok) return undefined;
    out.push({ id: e.id, channel, env: read.value });
  }
  return out;
}

/**
 * The other user an event is about, when what it shows of them is hidden over HTTP once a block stands between
 * the two or that user is erased: their chat message (history leaves it out), presence (to friends only, as
 * GET /v1/presence/{id}), profile, request,
 * invite, and the notification they caused (the inbox deletes it). Undefined for the events that tell the
 * recipient's own state (friendRemoved, party membership), which live delivery gave as well.
 */
export function counterpartOf(env: EventEnvelope): string | undefined {
  const data = (env.data ?? {}) as { publicId?: string; fromPublicId?: string; actor?: { publicId?: string } | null };
  switch (env.type) {
    case 'chatMessage':
    case 'partyInviteReceived':
    case 'gameInviteReceived':
      return data.fromPublicId;
    case 'friendPresenceChanged':
    case 'friendProfileChanged':
    case 'friendRequestReceived':
    case 'friendRequestAccepted':
    case 'friendAdded':
      return data.publicId;
    case 'notification':
      return data.actor?.publicId;
    default:
      return undefined;
  }
}

/** The entries the viewer may still see at delivery time (the visibility of HTTP reads), read in one statement. */
async function visibleNow(ctx: Ctx, viewerId: string, entries: Replayed[]): Promise<Replayed[]> {
  const others = [...new Set(entries.map((e) => counterpartOf(e.env)).filter((p): p is string => p !== undefined))];
  if (!others.length) return entries;
  const visible = await visiblePublicIds(ctx.db, viewerId, others);
  return entries.filter((e) => {
    const other = counterpartOf(e.env);
    if (other === undefined) return true;
    // Presence is shown to friends only (GET /v1/presence/{id}: not_visible otherwise).
    return e.env.type === 'friendPresenceChanged' ? visible.get(other)?.friend === true : visible.has(other);
  });
}

export interface Replayer {
  /** Replays (or tells `resync`) and opens the gate; call once the socket's channels are live. */
  resume(conn: Connection, after: string | undefined): Promise<void>;
}

export function createReplayer(deps: { ctx: Ctx; sender: Sender; dispatch: Dispatch<Connection>; retention: LogRetention }): Replayer {
  const { ctx, sender, dispatch, retention } = deps;
  const limit = retention.maxEntries;

  /** Ends the replay: the closing frame, then the held frames the replay did not cover (ids after `head`). */
  const finish = (conn: Connection, head: string, closing: string, fresh: boolean) => {
    const held = inIdOrder(conn.gate ?? []);
    conn.replaying = false;
    const later = held.filter((h) => h.id === undefined || compareLogIds(h.id, head) > 0);
    // A fresh socket read nothing: what it got while opening is new to it, sent before the closing frame.
    if (fresh) for (const h of held) if (h.id !== undefined && compareLogIds(h.id, head) <= 0) sender.write(conn, h.frame);
    sender.write(conn, closing);
    // An event still pending for the socket (ordering.ts) keeps the later frames waiting until it is sent.
    if (conn.holds) return void (conn.gate = later);
    conn.gate = undefined;
    for (const h of later) sender.write(conn, h.frame);
  };
  const resync = (conn: Connection, head: string, reason: ResyncReason) => {
    ctx.metrics.resync();
    finish(conn, head, eventFrame('resync', { reason }, head), false);
  };

  /** The missed entries of the parties the user was in, up to the head of the first read; undefined: a gap. */
  const partyEntries = async (after: string, head: string, windows: Windows): Promise<Replayed[] | undefined> => {
    const parties = [...windows];
    if (!parties.length) return [];
    const reads = parties.map(([p, ws]) => ({ log: replayLog(partyChannel(p)), after: ws.map((w) => w.from).reduce((a, b) => (compareLogIds(a, b) <= 0 ? a : b), after) }));
    const { results } = await ctx.state.logRead(reads, retention, limit);
    if (results.some((r) => !r.complete)) return undefined;
    const read = results.map((r, i) => parsed(partyChannel(parties[i][0]), r.entries));
    if (read.some((r) => !r)) return undefined;
    return read.flatMap((r, i) => r!.filter((e) => compareLogIds(e.id, head) <= 0 && within(parties[i][1], e.id)));
  };

  /** One replayed entry to the socket: control messages only for the event they carry. */
  const replayOne = async (conn: Connection, e: Replayed) => {
    const type = e.env.type as string;
    if (type.startsWith('_')) {
      const event = (e.env.data as { event?: { type: string; data: unknown } } | null)?.event;
      if (type === '_partyChanged' && event) sender.write(conn, eventFrame(event.type, event.data, e.id));
      return;
    }
    // Most dispatches finish at once; only a chat author's relations read makes one wait.
    const pending = dispatch(e.channel, { ...e.env, id: e.id }, [conn]);
    if (pending) await pending;
  };

  return {
    async resume(conn, after) {
      if (after === undefined || !isLogId(after)) {
        const { head } = await ctx.state.logRead([], retention, 0);
        if (after === undefined) return finish(conn, head, eventFrame('caughtUp', { resumed: false }, head), true);
        return resync(conn, head, 'invalid');
      }
      const channel = userChannel(conn.user.id);
      const { head, results } = await ctx.state.logRead([{ log: replayLog(channel), after }], retention, limit);
      if (compareLogIds(after, head) > 0) return resync(conn, head, 'invalid');
      // Nothing was appended to any log since (one id sequence for all of them): nothing was missed, however old
      // `after` is (a deployment whose log is still empty hands out 0-0, older than any retention floor).
      if (compareLogIds(after, head) === 0) return finish(conn, head, eventFrame('caughtUp', { resumed: true }, head), false);
      if (!results[0].complete) return resync(conn, head, 'expired');
      const mine = parsed(channel, results[0].entries);
      if (!mine) return resync(conn, head, 'expired');
      const theirs = await partyEntries(after, head, partyWindows(after, mine, conn.partyId));
      if (!theirs) return resync(conn, head, 'expired');
      // Blocks and erasures since the events were logged apply as in HTTP reads (control messages pass).
      const all = await visibleNow(ctx, conn.user.id, [...mine, ...theirs].sort((a, b) => compareLogIds(a.id, b.id)));
      // The replayed frames leave in as few writes as the socket buffer allows (not one system call each).
      const socket = (conn.ws as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
      socket?.cork();
      try {
        for (const e of all) await replayOne(conn, e);
        ctx.metrics.replayed(all.length);
        finish(conn, head, eventFrame('caughtUp', { resumed: true }, head), false);
      } finally {
        socket?.uncork();
      }
    },
  };
}
