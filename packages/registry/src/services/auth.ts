/**
 * Who is calling: a developer bearer token, checked against the current
 * account on every request so a demoted or removed account loses its rights
 * at once (the role claim in the token is informative only).
 */
import type { Database } from '@platform/kit';
import type { FastifyRequest } from 'fastify';
import { developerQueries } from '../queries/developers.js';
import type { Role, TokenService } from './tokens.js';
import { fail } from '../errors.js';

export interface Caller {
  id: string;
  email: string;
  role: Role;
}

const unauthorized = () =>
  fail('unauthorized', 'A valid developer bearer token is required', undefined, {
    headers: { 'www-authenticate': 'Bearer realm="platform-registry"' },
  });

export function authenticator(db: Database, tokens: TokenService) {
  const developers = developerQueries(db);
  const developer = async (req: FastifyRequest): Promise<Caller> => {
    const header = req.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer ([A-Za-z0-9_.~+/=-]+)$/i.exec(header.trim()) : null;
    if (!match) throw unauthorized();
    let claims;
    try {
      claims = await tokens.verify(match[1]);
    } catch {
      throw unauthorized();
    }
    const d = await developers.byId(claims.developerId);
    if (!d) throw unauthorized();
    return { id: d.id, email: d.email, role: d.role };
  };
  return {
    developer,
    async superAdmin(req: FastifyRequest): Promise<Caller> {
      const caller = await developer(req);
      if (caller.role !== 'super-admin') throw fail('forbidden', 'Only the super-admin may do this');
      return caller;
    },
  };
}

export type Authenticator = ReturnType<typeof authenticator>;
