// Rolling upgrades (docs/deployment.md, "Rolling upgrades"; docs/decisions/0020-versioned-messages.md): an outbox row
// outlives the auth node that wrote it. The rows the previous release stored (recorded from its code:
// packages/e2e/test/fixtures/wire/previous.json) are delivered by a node of this release to a target as they were,
// and the rows this release stores are written in the format the previous release's social accepts (no `v` yet:
// its schema refused unknown members).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { bearer, guest, harness, type Harness } from './support/harness.js';

const previous = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../e2e/test/fixtures/wire/previous.json'), 'utf8')) as {
  messages: Record<string, { by: string; raw: string }[]>;
};

/** Placeholders made into UUIDs (every id of a notice is one). */
function fill(raw: string): string {
  const values = new Map<string, string>();
  return raw.replace(/\{\{[^}]+\}\}/g, (p) => values.get(p) ?? (values.set(p, randomUUID()), values.get(p)!));
}

describe('rolling upgrade: outbox rows of the previous release', () => {
  const received: Record<string, unknown>[] = [];
  let server: http.Server;
  let h: Harness;
  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
        res.end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    h = await harness({ AUTH_OUTBOX_TARGETS: url, AUTH_OUTBOX_POLL_MS: '60000' });
  });
  after(async () => {
    await h.close();
    await new Promise((r) => server.close(r));
  });

  it('are delivered by this release as they were stored', async () => {
    const rows = previous.messages['auth.outbox'].map((m) => JSON.parse(fill(m.raw)) as Record<string, unknown> & { id: string; type: string });
    assert.deepEqual([...new Set(rows.map((r) => r.type))].sort(), ['key_rotation', 'revocation', 'sanction']);
    for (const { id, ...payload } of rows) {
      await h.tdb.db.query('INSERT INTO outbox (id, topic, payload) VALUES ($1, $2, $3)', [id, payload.type, JSON.stringify(payload)]);
    }
    // Passes until every row went out (each pass claims what is due).
    for (let i = 0; i < 10 && !rows.every((row) => received.some((b) => b.id === row.id)); i++) await h.app.auth.outbox.runOnce();
    for (const row of rows) assert.deepEqual(received.find((b) => b.id === row.id), row, `${row.type} delivered unchanged`);
  });

  it('this release stores what the previous release’s social accepts: no `v` in the notice', async () => {
    const g = await guest(h.app);
    assert.equal((await h.app.inject({ method: 'DELETE', url: '/account', headers: bearer(g.access_token) })).statusCode, 202);
    const stored = await h.tdb.db.query<{ topic: string; payload: Record<string, unknown> }>(`SELECT topic, payload FROM outbox WHERE payload->>'account_id' = $1`, [g.account_id]);
    assert.deepEqual(stored.rows.map((r) => r.topic).sort(), ['account.deleted', 'revocation']);
    for (const r of stored.rows) assert.equal('v' in r.payload, false, r.topic);
  });
});
