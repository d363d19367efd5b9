/** Who may see or lead a party: the reads every party and party-invite operation starts with. */
import { UUID_PATTERN as UUID, type Queryable } from '@platform/kit';
import type { UserRow } from '../context.js';
import { socialError } from './errors.js';
import { isPartyMember, partyById, type PartyRow } from '../queries/parties.js';

/** The party, or undefined for an unknown id (also one that is not a UUID). */
export async function partyRow(db: Queryable, id: string): Promise<PartyRow | undefined> {
  if (!UUID.test(id)) return undefined;
  return partyById(db, id);
}

/** The party of a member; non-members (and unknown ids) get 404 party_not_found. */
export async function memberParty(db: Queryable, me: UserRow, id: string): Promise<PartyRow> {
  const p = await partyRow(db, id);
  if (!p || !(await isPartyMember(db, id, me.id))) throw socialError('party_not_found', 'No such party');
  return p;
}

export async function leaderParty(db: Queryable, me: UserRow, id: string): Promise<PartyRow> {
  const p = await memberParty(db, me, id);
  if (p.leader !== me.id) throw socialError('not_leader', 'Only the party leader can do this');
  return p;
}
