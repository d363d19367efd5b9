/**
 * store_a: Steam-style encrypted app tickets. The client asks the store for
 * an encrypted app ticket and sends it; only the store and the app know the
 * app's symmetric ticket key, so a ticket that decrypts (and whose CRC and
 * salted SHA-1 check out, both done by `steam-appticket`) was issued by the
 * store. We then check the app id, the ticket's age and the steam id.
 */
import { createDecipheriv } from 'node:crypto';
import { createRequire } from 'node:module';
import { parseEncryptedAppTicket } from 'steam-appticket';
import type { StoreAConfig } from './config.js';
import { invalidTicket, MAX_TICKET_CHARS } from './errors.js';
import type { TicketVerifier } from './types.js';

/** Seconds a ticket's issue time may lie in the future (clock skew). */
export const TICKET_CLOCK_SKEW_SECONDS = 30;

/**
 * The ticket travels in JSON as hex (what clients usually send after
 * GetEncryptedAppTicket), or as base64 / base64url.
 */
export function decodeTicketBytes(ticket: string): Buffer | null {
  const t = ticket.trim();
  if (t.length === 0 || t.length > MAX_TICKET_CHARS) return null;
  if (/^(?:[0-9a-fA-F]{2})+$/.test(t)) return Buffer.from(t, 'hex');
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(t)) {
    const buf = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    return buf.length ? buf : null;
  }
  return null;
}

// The package's own protobuf decoder, so the guard below reads exactly the bytes it will decrypt.
const { EncryptedAppTicket } = createRequire(import.meta.url)('steam-appticket/dist/protobuf-generated/load.js').default as {
  EncryptedAppTicket: { decode(b: Buffer): { encrypted_ticket?: Uint8Array } };
};

/**
 * True when the ticket's encrypted part decrypts under `key` (block lengths
 * and PKCS#7 padding valid). Guard for a crash in steam-appticket: its
 * decryption (@doctormckay/steam-crypto) uses cipher streams whose padding
 * or block-length failures are emitted as an asynchronous 'error' event that
 * no try/catch sees, so a ticket encrypted with another key (or truncated)
 * would kill the process. Only tickets that pass this check reach the package.
 */
function decryptsWithKey(bytes: Buffer, key: Buffer): boolean {
  try {
    const data = EncryptedAppTicket.decode(bytes).encrypted_ticket;
    if (!data || data.length < 32 || data.length % 16 !== 0) return false;
    const ecb = createDecipheriv('aes-256-ecb', key, null);
    ecb.setAutoPadding(false);
    const iv = Buffer.concat([ecb.update(data.subarray(0, 16)), ecb.final()]);
    const cbc = createDecipheriv('aes-256-cbc', key, iv);
    cbc.update(data.subarray(16));
    cbc.final(); // throws on bad padding
    return true;
  } catch {
    return false;
  }
}

export function createSteamTicketVerifier(config: StoreAConfig, now: () => number = Date.now): TicketVerifier {
  const provider = 'store_a';
  return async (ticket) => {
    const bytes = decodeTicketBytes(ticket);
    if (!bytes) throw invalidTicket(provider, 'ticket is not hex or base64');
    // null for anything malformed, encrypted with another key, or failing its CRC / hash.
    const decoded = decryptsWithKey(bytes, config.encryptionKey) ? parseEncryptedAppTicket(bytes, config.encryptionKey) : null;
    if (!decoded) throw invalidTicket(provider, "ticket is malformed or not encrypted with this app's key");
    if (decoded.appID !== config.appId) throw invalidTicket(provider, 'ticket was issued for another app id');

    const issuedMs = decoded.ownershipTicketGenerated.getTime();
    if (!Number.isFinite(issuedMs)) throw invalidTicket(provider, 'ticket has no issue time');
    const ageSeconds = (now() - issuedMs) / 1000;
    if (ageSeconds < -TICKET_CLOCK_SKEW_SECONDS) throw invalidTicket(provider, 'ticket is issued in the future');
    if (ageSeconds > config.maxTicketAgeSeconds) {
      throw invalidTicket(provider, `ticket is too old (older than ${config.maxTicketAgeSeconds} s)`);
    }

    if (!decoded.steamID.isValidIndividual()) throw invalidTicket(provider, 'ticket does not name an individual account');
    return { provider, providerUserId: decoded.steamID.getSteamID64() };
  };
}
