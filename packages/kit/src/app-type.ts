/**
 * The Fastify instance every service builds (createService, http.ts), and small helpers the kit's HTTP modules share.
 * Its own module so that cors, metrics, the response contract and the connection drain need not import http.ts,
 * which imports them.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';

export type App = FastifyInstance<any, any, any, any, TypeBoxTypeProvider>;

export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}
