/** What the client-key and game-credentials suites share: a password, a run tag, a game's credentials, a socket. */
import { randomBytes } from 'node:crypto';
import type WebSocket from 'ws';

export const PASSWORD = 'correct horse battery staple 42';
/** Makes this run's emails and device fingerprints unique. */
export const tag = randomBytes(3).toString('hex');

export interface Game {
  gameId: string;
  clientKey: string;
  pair: Record<string, string>;
}

export interface Socket {
  ws: WebSocket;
  frames: { type: string; data: any }[];
  closed: Promise<{ code: number; reason: string }>;
}
