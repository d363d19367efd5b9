/**
 * Appeal decisions told to the player (docs/social.md, "Internal notices from auth"; docs/auth.md, "Appeals"): auth's
 * `appeal` notice (through its outbox) becomes a `moderationNotice` in the player's inbox, delivered live when a
 * socket is open. It says what was decided and the moderator's answer, never who decided. Idempotent on the notice id
 * (a redelivery stores nothing new).
 */
import type { Ctx } from '../context.js';
import { socialError } from './errors.js';
import { notifyModeration } from './notifications.js';
import { userByAccount } from './users.js';

const OUTCOMES = new Set(['upheld', 'shortened', 'lifted']);
const MESSAGE_MAX = 2000;

/** What the player reads for an outcome. */
function messageOf(outcome: string, sanctionType: string, expiresAt: string | null, response: string | null): string {
  const what = sanctionType === 'ban' ? 'ban' : sanctionType === 'chat' ? 'chat restriction' : `"${sanctionType}" restriction`;
  const until = expiresAt ? ` until ${expiresAt.slice(0, 16).replace('T', ' ')} UTC` : '';
  const head =
    outcome === 'lifted'
      ? `Your appeal was accepted: the ${what} was lifted.`
      : outcome === 'shortened'
        ? `Your appeal was reviewed: the ${what} was shortened and now lasts${until}.`
        : `Your appeal was reviewed: the ${what} stays in place${until || ' (permanent)'}.`;
  const text = response ? `${head}\n\n${response}` : head;
  return text.length > MESSAGE_MAX ? `${text.slice(0, MESSAGE_MAX - 1)}…` : text;
}

/** Stores the decision in the player's inbox; false when social has no profile for the account (nothing to tell). */
export async function appealDecided(ctx: Ctx, n: Record<string, unknown> & { id: string }): Promise<boolean> {
  const { account_id: accountId, appeal_id: appealId, outcome, sanction_type: sanctionType, expires_at: expiresAt, response } = n;
  if (typeof accountId !== 'string' || !accountId) throw socialError('validation_failed', 'appeal needs account_id', { field: 'account_id' });
  if (typeof appealId !== 'string' || !appealId) throw socialError('validation_failed', 'appeal needs appeal_id', { field: 'appeal_id' });
  if (typeof outcome !== 'string' || !OUTCOMES.has(outcome)) throw socialError('validation_failed', 'appeal needs outcome: upheld, shortened or lifted', { field: 'outcome' });
  const user = await userByAccount(ctx.db, accountId);
  if (!user) return false;
  const message = messageOf(
    outcome,
    typeof sanctionType === 'string' ? sanctionType : 'sanction',
    typeof expiresAt === 'string' ? expiresAt : null,
    typeof response === 'string' && response ? response : null,
  );
  await notifyModeration(ctx, user, n.id, { title: 'Your appeal was answered', message, reference: `appeal:${appealId}` });
  return true;
}
