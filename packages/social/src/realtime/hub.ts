/**
 * Local fan-out: one state-store subscription per channel per node, shared by
 * every local socket on that channel (subscribed with the first socket,
 * unsubscribed with the last). Each message is parsed once; the recipients
 * are the sockets on the channel when the message arrives; messages of one
 * channel are handled in arrival order (dispatched at once when the channel has
 * nothing waiting, else after what is waiting).
 *
 * Events published by this node are handed to the hub directly (`deliverLocal`)
 * and carry the node's `origin`: their copy coming back from the state store is
 * skipped, so a local recipient does not wait for the round trip through Redis
 * (the Socket.IO Redis adapter does the same). Other nodes get them through the
 * store as before.
 */
import type { StateStore, Unsubscribe } from '@platform/kit';
import { EVENT_WIRE, type EventEnvelope } from '../services/events.js';

export interface Subscriber {
  readonly id: string;
}

interface ChannelEntry<S extends Subscriber> {
  sockets: Set<S>;
  ready: Promise<Unsubscribe | undefined>;
  queue: Promise<void>;
  /** Messages whose dispatch has not finished (0: the next one may be dispatched at once). */
  pending: number;
}

export type Dispatch<S extends Subscriber> = (channel: string, message: EventEnvelope, recipients: S[]) => Promise<void> | void;

type Log = { warn(obj: object, msg: string): void };

/**
 * Called around a message whose dispatch does not finish at once (it waits for a read, or for an earlier
 * message of its channel): `hold` when it is enqueued, `release` when its dispatch has ended. The realtime
 * layer holds the recipients' other frames meanwhile, so a socket gets its events in id order across channels.
 */
export interface HoldHooks<S> {
  hold(recipients: S[]): void;
  release(recipients: S[]): void;
}

export class Hub<S extends Subscriber> {
  private readonly channels = new Map<string, ChannelEntry<S>>();

  constructor(
    private readonly state: StateStore,
    private readonly dispatch: Dispatch<S>,
    private readonly log: Log,
    /** This node's publisher id: messages carrying it were delivered by deliverLocal already. */
    origin?: string,
    private readonly holds?: HoldHooks<S>,
    /** Told of each event that reached no socket here (metrics). */
    private readonly onDrop: (reason: 'no_recipient' | 'dispatch_failed' | 'unreadable') => void = () => {},
    /** Told of each message heard from the store (not this node's own echo): whether a socket here was on its channel. */
    private readonly onReceived: (local: boolean) => void = () => {},
  ) {
    this.originSuffix = origin === undefined ? undefined : `,"origin":${JSON.stringify(origin)}}`;
  }

  private readonly originSuffix: string | undefined;

  /** True for a message this node published itself (its origin suffix), recognised without parsing. */
  isOwnEcho(raw: string): boolean {
    return this.originSuffix !== undefined && raw.endsWith(this.originSuffix);
  }

  /** An event this node publishes, to the local sockets on its channel (none: nothing to do). */
  deliverLocal(channel: string, message: EventEnvelope): void {
    const entry = this.channels.get(channel);
    if (entry) this.enqueue(channel, entry, message);
  }

  /** Adds a socket to a channel; resolves once the node is subscribed. */
  async join(channel: string, socket: S): Promise<void> {
    let entry = this.channels.get(channel);
    if (!entry) {
      const created: ChannelEntry<S> = { sockets: new Set(), ready: Promise.resolve(undefined), queue: Promise.resolve(), pending: 0 };
      created.ready = this.state
        .subscribe(channel, (raw) => this.onMessage(channel, created, raw))
        .catch((err) => {
          // Forget the entry so the next join tries again.
          if (this.channels.get(channel) === created) this.channels.delete(channel);
          throw err;
        });
      this.channels.set(channel, (entry = created));
    }
    entry.sockets.add(socket);
    await entry.ready;
  }

  /** Removes a socket; the last one out unsubscribes the node. */
  async leave(channel: string, socket: S): Promise<void> {
    const entry = this.channels.get(channel);
    if (!entry || !entry.sockets.delete(socket) || entry.sockets.size) return;
    this.channels.delete(channel);
    const unsubscribe = await entry.ready.catch(() => undefined);
    await unsubscribe?.().catch((err) => this.log.warn({ err, channel }, 'unsubscribe failed'));
  }

  /** Channels this node is subscribed to (tests and metrics). */
  subscribedChannels(): string[] {
    return [...this.channels.keys()];
  }

  socketsOn(channel: string): number {
    return this.channels.get(channel)?.sockets.size ?? 0;
  }

  private onMessage(channel: string, entry: ChannelEntry<S>, raw: string): void {
    // Our own echo, recognised without parsing: the publisher appends origin as the last member.
    if (this.isOwnEcho(raw)) return;
    this.onReceived(entry.sockets.size > 0);
    // Versioned (docs/decisions/0020-versioned-messages.md): this release's and the previous one's, unknown members ignored.
    const read = EVENT_WIRE.decode(raw);
    if (!read.ok) {
      this.log.warn({ err: read.error, reason: read.reason, channel }, 'unreadable event dropped');
      this.onDrop('unreadable');
      return;
    }
    this.enqueue(channel, entry, read.value);
  }

  private enqueue(channel: string, entry: ChannelEntry<S>, message: EventEnvelope): void {
    // Recipients are fixed now: a socket that leaves the channel right after still gets what arrived before.
    const recipients = [...entry.sockets];
    if (!recipients.length) this.onDrop('no_recipient');
    let running: Promise<void>;
    if (entry.pending === 0) {
      // Nothing of this channel is waiting: dispatch now. Most dispatches finish synchronously (a frame
      // written to each socket), and then no promise is made at all; one that must wait (a chat message
      // whose author's relations are being read) holds the channel's later messages behind it.
      let result: Promise<void> | void;
      try {
        result = this.dispatch(channel, message, recipients);
      } catch (err) {
        return this.failed(err, channel, message);
      }
      if (!result) return;
      running = result;
    } else {
      running = entry.queue.then(() => this.dispatch(channel, message, recipients));
    }
    entry.pending++;
    this.holds?.hold(recipients);
    entry.queue = running
      .catch((err) => this.failed(err, channel, message))
      .finally(() => {
        entry.pending--;
        this.holds?.release(recipients);
      });
  }

  private failed(err: unknown, channel: string, message: EventEnvelope): void {
    this.log.warn({ err, channel, type: message.type }, 'event not delivered');
    this.onDrop('dispatch_failed');
  }
}
