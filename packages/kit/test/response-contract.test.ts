// The response contract check (response-contract.ts): with PLATFORM_CHECK_RESPONSES=1 a service that has an
// error-code list answers 500 response_contract_violation for an undocumented status or a body that does not
// match its documented schema; documented answers pass untouched; without the variable nothing is checked.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { createService, kitErrorCodes, type App } from '../src/index.js';
import { captureLogs } from '../src/testing.js';

const codes = kitErrorCodes.extend({ thing_not_found: 404 });

async function demo(check: boolean): Promise<{ app: App; logs: ReturnType<typeof captureLogs> }> {
  const saved = process.env.PLATFORM_CHECK_RESPONSES;
  if (check) process.env.PLATFORM_CHECK_RESPONSES = '1';
  else delete process.env.PLATFORM_CHECK_RESPONSES;
  const logs = captureLogs();
  const app = await createService({ name: 'contract-demo', fieldCase: 'camel', errorCodes: codes, logStream: logs.stream });
  if (saved === undefined) delete process.env.PLATFORM_CHECK_RESPONSES;
  else process.env.PLATFORM_CHECK_RESPONSES = saved;
  const Thing = Type.Object({ id: Type.Integer(), kind: Type.String({ minLength: 1 }) });
  app.get('/things/:id', { schema: { params: Type.Object({ id: Type.Integer() }), response: { 200: Thing } }, config: { access: 'public' } }, async (req, reply) => {
    const id = req.params.id;
    if (id === 1) return { id, kind: 'a' };
    if (id === 2) return { id, kind: '' }; // shorter than documented (the serialiser does not check lengths)
    if (id === 3) return (reply as any).status(202).send({ id, kind: 'a' }); // undocumented status
    if (id === 4) throw codes.fail('thing_not_found', 'No thing'); // a listed code, status not declared
    if (id === 5) throw codes.fail('validation_failed', 'implied 400');
    return (reply as any).status(204).send();
  });
  await app.ready();
  return { app, logs };
}

describe('response contract check', () => {
  const apps: App[] = [];
  after(() => Promise.all(apps.map((a) => a.close())));

  it('passes documented answers; an undocumented status or a body off its schema becomes 500 response_contract_violation', async () => {
    const { app, logs } = await demo(true);
    apps.push(app);
    const get = (id: number) => app.inject({ url: `/things/${id}` });
    assert.deepEqual((await get(1)).json(), { id: 1, kind: 'a' });
    assert.equal((await get(5)).statusCode, 400, 'implied statuses (400, 500, 503) are documented for every route');
    for (const [id, why] of [
      [2, /status 200 body \/kind/],
      [3, /status 202 is not documented/],
      [4, /status 404 is not documented/],
      [6, /status 204 is not documented/],
    ] as const) {
      const r = await get(id);
      assert.equal(r.statusCode, 500, `thing ${id}`);
      assert.equal(r.json().code, 'response_contract_violation');
      assert.match(r.json().message, why);
    }
    assert.ok(logs.lines().some((l) => l.msg === 'response does not match its documented contract' && l.level === 50));
  });

  it('checks nothing unless PLATFORM_CHECK_RESPONSES=1', async () => {
    const { app } = await demo(false);
    apps.push(app);
    assert.equal((await app.inject({ url: '/things/3' })).statusCode, 202);
    assert.equal((await app.inject({ url: '/things/4' })).statusCode, 404);
  });
});
