import Fastify from 'fastify';
import { loadOrCreateTls, tls13Options } from '@platform/kit';
const tls = await loadOrCreateTls({ dir: '/tmp/exp/tls' });
const app = Fastify({ https: tls13Options(tls) });
const body = { access_token: 'x'.repeat(400), refresh_token: 'y'.repeat(43), expires_in: 600, token_type: 'Bearer', account_id: '00000000-0000-0000-0000-000000000000' };
app.post('/refresh', async () => body);
await app.listen({ port: 39999, host: '127.0.0.1' });
console.log('up');
