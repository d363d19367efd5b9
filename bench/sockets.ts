/** WebSocket figures: filled in below once /v1/ws exists; the bare-ws baselines run regardless. */
import type { Figure } from './run.js';
import type { Proc } from './lib.js';

export interface SocketContext {
  want(id: string): boolean;
  common: Record<string, string>;
  authEnv: Record<string, string>;
  dataDir: string;
  procs: Proc[];
  log(m: string): void;
}

export async function socketFigures(_ctx: SocketContext): Promise<Omit<Figure, 'ratio'>[]> {
  return [];
}
