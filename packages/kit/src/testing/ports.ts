/** Free TCP ports on the loopback interface (never fixed ports: tests run in parallel). */
import net from 'node:net';

/** Asks the kernel for a free port; a tiny race remains until the caller binds it. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
