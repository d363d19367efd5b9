// Rolling upgrades (docs/decisions/0020-versioned-messages.md, docs/deployment.md "Rolling upgrades"): every message
// that crosses nodes or outlives one, both ways between this release and the previous one.
// - fixtures/wire/previous.json: recorded from the previous release (scripts/record-wire-fixtures.ts): this
//   release's kinds read every one of them, to the same value the previous release took from it;
// - fixtures/wire/current.json: recorded from this release: the previous release's readers (fixtures/wire/
//   previous-readers.ts, its parsing code) read every one, and re-encoding a previous message gives one they read
//   the same way.
// The nodes themselves are fed the previous messages through the store in social's rolling-upgrade.test.ts and
// registry's rolling-upgrade.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { GAME_CREDENTIALS_WIRE, type WireKind } from '@platform/kit';
import { EVENT_WIRE, FANOUT_WIRE, RELATIONS_WIRE } from '../../social/src/services/events.js';
import { PRESENCE_RECORD_WIRE } from '../../social/src/services/presence.js';
import { AUTH_REVOCATION_WIRE, REVOCATIONS_WIRE } from '../../social/src/services/revocations.js';
import { AUTH_SANCTION_WIRE, SANCTIONS_WIRE } from '../../social/src/services/sanctions.js';
import { BUS_NOTICE_WIRE, OUTBOX_NOTICE_WIRE } from '../../auth/src/services/notice-wire.js';
import { INVALIDATION_WIRE } from '../../registry/src/services/api-key-cache.js';
import * as previous from './fixtures/wire/previous-readers.js';

interface Recording {
  release: string;
  messages: Record<string, { by: string; channel?: string; raw: string }[]>;
}
const load = (name: string): Recording => JSON.parse(readFileSync(path.join(import.meta.dirname, 'fixtures/wire', `${name}.json`), 'utf8')) as Recording;
const before = load('previous');
const now = load('current');

/** Placeholders made into values each reader accepts (ids are UUIDs; a handle or key may be any text). */
function fill(raw: string): string {
  const values = new Map<string, string>();
  return raw.replace(/\{\{[^}]+\}\}/g, (p) => {
    if (!values.has(p)) values.set(p, randomUUID());
    return values.get(p)!;
  });
}

/** What the store's log append publishes (kit state/event-log.ts withLogId): the id as the first member. */
const withLogId = (message: string, id: string) => `{"id":"${id}",${message.slice(1)}`;

type AnyKind = WireKind<unknown>;
/** Each recorded kind: this release's reader and writer, and the previous release's reader. */
const KINDS: Record<string, { kind: AnyKind; old: (raw: string) => unknown; writes?: AnyKind }> = {
  'social.user': { kind: EVENT_WIRE as AnyKind, old: previous.readEvent },
  'social.party': { kind: EVENT_WIRE as AnyKind, old: previous.readEvent },
  'social.replayEntry': { kind: EVENT_WIRE as AnyKind, old: previous.readReplayEntry },
  'social.fanout': { kind: FANOUT_WIRE as AnyKind, old: previous.readFanout },
  'social.relations': { kind: RELATIONS_WIRE as AnyKind, old: previous.readRelations },
  'social.presenceRecord': { kind: PRESENCE_RECORD_WIRE as AnyKind, old: previous.readPresenceRecord },
  'social.revocations': { kind: REVOCATIONS_WIRE as AnyKind, old: previous.readRevocationRelay },
  'social.sanctions': { kind: SANCTIONS_WIRE as AnyKind, old: previous.readSanctionRelay },
  // Auth writes its bus notices with BUS_NOTICE_WIRE; social reads them with its own kinds.
  'auth.revocation': { kind: AUTH_REVOCATION_WIRE as AnyKind, old: previous.readAuthRevocation, writes: BUS_NOTICE_WIRE as AnyKind },
  'auth.sanction': { kind: AUTH_SANCTION_WIRE as AnyKind, old: previous.readAuthSanction, writes: BUS_NOTICE_WIRE as AnyKind },
  'auth.keyRotation': { kind: BUS_NOTICE_WIRE as AnyKind, old: previous.readKeyRotation },
  'auth.outbox': { kind: OUTBOX_NOTICE_WIRE as AnyKind, old: previous.readAuthEventsBody },
  'registry.apiKeyInvalidation': { kind: INVALIDATION_WIRE as AnyKind, old: previous.readApiKeyInvalidation },
  'registry.gameCredentials': { kind: GAME_CREDENTIALS_WIRE as AnyKind, old: previous.readGameCredentials },
};

/** Drops what a release adds in transit and never reads (the version itself). */
const withoutV = (v: unknown): unknown => {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const { v: _version, ...rest } = v as Record<string, unknown>;
    return rest;
  }
  return v;
};

describe('wire: this release and the previous one read each other', () => {
  it('every kind recorded is covered here, in both recordings', () => {
    assert.deepEqual(Object.keys(before.messages).sort(), Object.keys(KINDS).sort());
    assert.deepEqual(Object.keys(now.messages).sort(), Object.keys(KINDS).sort());
  });

  it("this release reads every message of the previous release's recording", () => {
    for (const [name, list] of Object.entries(before.messages)) {
      for (const m of list) {
        const read = KINDS[name].kind.decode(fill(m.raw));
        assert.ok(read.ok, `${name} (${m.by}): ${read.ok ? '' : read.error}\n${m.raw}`);
        assert.equal(read.version, 1);
      }
    }
  });

  it('the previous release reads every message this release writes (recorded), as it read its own', () => {
    for (const [name, list] of Object.entries(now.messages)) {
      for (const m of list) {
        const raw = fill(m.raw);
        const got = KINDS[name].old(raw);
        assert.ok(got !== undefined, `the previous release drops ${name} (${m.by}):\n${m.raw}`);
      }
    }
  });

  it('re-encoded by this release, a previous message means to the previous reader what it meant before', () => {
    for (const [name, list] of Object.entries(before.messages)) {
      const { kind, old, writes } = KINDS[name];
      for (const m of list) {
        const raw = fill(m.raw);
        const read = (writes ?? kind).decode(raw);
        assert.ok(read.ok);
        // The replay log's id is put in by the store's append, not by the writer.
        const logId = raw.startsWith('{') ? (JSON.parse(raw) as { id?: unknown }).id : undefined;
        const encoded = (writes ?? kind).encode(read.value);
        const again = typeof logId === 'string' && /^\d+-\d+$/.test(logId) ? withLogId(encoded, logId) : encoded;
        assert.deepEqual(withoutV(old(again)), withoutV(old(raw)), `${name} (${m.by})`);
      }
    }
  });

  it('this release writes the versions the previous one reads: version 1 everywhere; bare where that reader was strict', () => {
    for (const { kind, writes } of Object.values(KINDS)) if ((writes ?? kind).writes !== undefined) assert.equal((writes ?? kind).writes, 1, kind.name);
    // Social's auth-events route of the previous release refused unknown members: the outbox writes no `v` yet.
    assert.equal('v' in OUTBOX_NOTICE_WIRE.encodeObject({ type: 'key_rotation', kid: 'k' }), false);
    // The registry's invalidation was plain text: still written so; the JSON version 2 is read already.
    assert.equal(INVALIDATION_WIRE.encode({ key: 'pk_1' }), 'pk_1');
    assert.deepEqual(INVALIDATION_WIRE.decode('{"v":2,"key":"pk_1"}'), { ok: true, value: { key: 'pk_1' }, version: 2 });
  });

  it('the fan-out presence of the release before per-socket presence (groups of payloads) is read, not dropped', () => {
    // What that release wrote (events.ts before cd3d167: toUsers with per-friend payloads).
    const older = JSON.stringify({ type: 'friendPresenceChanged', groups: [{ data: { publicId: 'p1', state: 'away', sameGame: false }, userIds: ['u1', 'u2'] }], actorPublicId: 'p1' });
    assert.equal(previous.readFanout(older), undefined, 'the previous release dropped it');
    const read = FANOUT_WIRE.decode(older);
    assert.ok(read.ok && 'groups' in read.value && read.value.groups[0].userIds.length === 2);
  });
});
