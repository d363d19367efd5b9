// Baseline for validate-key: a bare Fastify route returning a constant (no schema, no logger, no storage).
import Fastify from 'fastify';

const app = Fastify({ logger: false });
const answer = { Valid: true, GameId: '00000000-0000-4000-8000-000000000000', CrossGameVisibility: 'none' };
app.post('/auth/validate-key', async () => answer);
app.get('/readyz', async () => ({ ok: true }));
await app.listen({ port: Number(process.env.BENCH_PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
