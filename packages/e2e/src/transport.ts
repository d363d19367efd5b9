/**
 * How SDK clients in Node reach a started platform: undici's fetch with one agent per service (both self-signed
 * certificates carry the same subject, so one CA list holding both would let OpenSSL pick the wrong one), and
 * `ws`'s WebSocket trusting social's certificate (Node 20 has no global WebSocket).
 */
import { Agent, fetch as undiciFetch } from 'undici';
import WebSocket from 'ws';
import type { Platform } from './platform.js';

/** `onFetch` sees every URL fetched (to count refreshes); `close` closes the agents. */
export function platformTransport(platform: Platform, onFetch?: (url: string) => void) {
  const authAgent = new Agent({ connect: { ca: platform.authTls.cert } });
  const socialAgent = new Agent({ connect: { ca: platform.socialTls.cert } });
  const ca = platform.socialTls.cert;
  class TrustingWebSocket extends WebSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols, { ca });
    }
  }
  return {
    fetch: (url: string, init?: Parameters<typeof undiciFetch>[1]) => {
      onFetch?.(url);
      return undiciFetch(url, { ...init, dispatcher: url.startsWith(platform.socialUrl) ? socialAgent : authAgent });
    },
    WebSocket: TrustingWebSocket,
    async close() {
      await authAgent.close();
      await socialAgent.close();
    },
  };
}
