/** What several kit tests need of a raw socket. */
import type net from 'node:net';

/** Far beyond every limit the tests set: a socket still open by then was never going to be closed. */
export const GIVE_UP_MS = 8000;

/** Resolves with what the server sent once it closes the socket; rejects if it is still open after GIVE_UP_MS. */
export function closedByServer(socket: net.Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = '';
    socket.on('data', (d) => (got += d.toString()));
    socket.on('error', () => {});
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open (got ${JSON.stringify(got.slice(0, 200))})`));
    }, GIVE_UP_MS);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(got);
    });
  });
}
