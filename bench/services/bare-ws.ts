/**
 * Baselines of the socket figures: a bare `ws` server (no auth, no state, no
 * routing). Sockets connect to /?g=<group>&r=s|r. A text message from a
 * sender (r=s) is sent as is to every receiver of its group, then acked to the
 * sender with "a". Any other GET answers 200 (readiness).
 */
import http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';

const groups = new Map<string, Set<WebSocket>>();
const server = http.createServer((req, res) => {
  res.end('ok');
});
const wss = new WebSocketServer({ server, perMessageDeflate: false });
wss.on('connection', (ws, req) => {
  const q = new URL(req.url ?? '/', 'http://x').searchParams;
  const g = q.get('g') ?? '0';
  if (q.get('r') === 's') {
    ws.on('message', (data, isBinary) => {
      const receivers = groups.get(g);
      if (receivers) for (const r of receivers) r.send(data, { binary: isBinary });
      ws.send('a');
    });
  } else {
    let set = groups.get(g);
    if (!set) groups.set(g, (set = new Set()));
    set.add(ws);
    ws.on('close', () => set!.delete(ws));
  }
});
server.listen(Number(process.env.BENCH_PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
