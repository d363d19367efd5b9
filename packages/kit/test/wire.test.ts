// kit wire.ts: versioned messages (docs/decisions/0020-versioned-messages.md).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineWire, versionOf } from '../src/wire.js';

interface Greeting {
  name: string;
  loud: boolean;
}

/** A kind at its version 2 (`loud` added), still writing version 1 in the release that brings version 2. */
const spec = (writes: 1 | 2) =>
  defineWire<Greeting>({
    name: 'test.greeting',
    read: {
      1: (m) => (typeof m.name === 'string' ? { name: m.name, loud: false } : undefined),
      2: (m) => (typeof m.name === 'string' && typeof m.loud === 'boolean' ? { name: m.name, loud: m.loud } : undefined),
    },
    writes,
    write: (g) => (writes === 1 ? { name: g.name } : { name: g.name, loud: g.loud }),
  });

describe('kit wire: versioned messages', () => {
  it('a message without v is version 1; v is a positive integer', () => {
    assert.equal(versionOf({}), 1);
    assert.equal(versionOf({ v: 3 }), 3);
    for (const v of [0, -1, 1.5, '2', null]) assert.equal(versionOf({ v }), undefined, String(v));
  });

  it('reads the current version and the previous one, ignoring unknown members', () => {
    const k = spec(1);
    assert.deepEqual(k.decode('{"name":"ada"}'), { ok: true, value: { name: 'ada', loud: false }, version: 1 });
    assert.deepEqual(k.decode('{"v":1,"name":"ada","extra":[1]}'), { ok: true, value: { name: 'ada', loud: false }, version: 1 });
    assert.deepEqual(k.decode('{"v":2,"name":"ada","loud":true,"later":{}}'), { ok: true, value: { name: 'ada', loud: true }, version: 2 });
    assert.deepEqual([k.current, k.reads, k.writes], [2, [1, 2], 1]);
  });

  it('refuses a version it does not read (never guesses), and what is not a message', () => {
    const k = spec(2);
    const newer = k.decode('{"v":3,"name":"ada"}');
    assert.ok(!newer.ok && newer.reason === 'unknown_version' && newer.version === 3);
    for (const raw of ['nope', '[1]', 'null', '"text"', '{"v":"2","name":"x"}', '{"v":1}']) {
      const r = k.decode(raw);
      assert.ok(!r.ok && r.reason === 'unreadable', raw);
    }
    assert.ok(!k.decodeObject(undefined).ok);
  });

  it('writes the version set, v first (a later member, like origin, stays last)', () => {
    assert.equal(spec(1).encode({ name: 'ada', loud: true }), '{"v":1,"name":"ada"}');
    assert.equal(spec(2).encode({ name: 'ada', loud: true }), '{"v":2,"name":"ada","loud":true}');
    const withOrigin = defineWire<{ origin: string }>({ name: 't', read: { 1: (m) => ({ origin: String(m.origin) }) }, writes: 1, write: (o) => ({ v: 9, origin: o.origin }) });
    assert.equal(withOrigin.encode({ origin: 'n1' }), '{"v":1,"origin":"n1"}');
  });

  it('bare version 1 (for a strict previous reader) and plain-text version 1', () => {
    const bare = defineWire<{ id: string }>({ name: 't', read: { 1: (m) => ({ id: String(m.id) }) }, writes: 1, write: (n) => ({ id: n.id }), bareV1: true });
    assert.equal(bare.encode({ id: 'a' }), '{"id":"a"}');
    assert.deepEqual(bare.decode('{"v":1,"id":"a"}'), { ok: true, value: { id: 'a' }, version: 1 });
    const plain = defineWire<{ key: string }>({
      name: 't',
      plainV1: true,
      read: { 1: (m) => ({ key: String(m.text) }), 2: (m) => (typeof m.key === 'string' ? { key: m.key } : undefined) },
      writes: 1,
      write: ({ key }) => ({ text: key }),
    });
    assert.equal(plain.encode({ key: 'pk_1' }), 'pk_1');
    for (const text of ['pk_1', '123', '"quoted"', '{"key":"not versioned"}']) assert.deepEqual(plain.decode(text), { ok: true, value: { key: text }, version: 1 }, text);
    assert.deepEqual(plain.decode('{"v":2,"key":"pk_1"}'), { ok: true, value: { key: 'pk_1' }, version: 2 });
  });

  it('a kind reads at most two consecutive versions and writes one it reads', () => {
    const r = (m: Record<string, unknown>) => m;
    assert.throws(() => defineWire({ name: 't', read: { 1: r, 2: r, 3: r } }), /the one before/);
    assert.throws(() => defineWire({ name: 't', read: { 1: r, 3: r } }), /the one before/);
    assert.throws(() => defineWire({ name: 't', read: { 2: r, 3: r }, writes: 1, write: r }), /version written/);
    assert.throws(() => defineWire({ name: 't', read: { 1: r } }).encode({}), /only read/);
  });
});
