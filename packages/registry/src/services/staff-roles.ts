/**
 * The super-admin makes platform staff without stopping anything (docs/registry.md, "Staff roles"): a moderator
 * or admin role granted or taken away on an auth account, through auth's POST /internal/staff-roles with the
 * registry's internal key (the one caller that route accepts). The audit entry at auth names the super-admin.
 */
import { fail } from '../errors.js';
import { authUnavailable, callAuth } from '../adapters/auth-client.js';
import type { Context } from '../context.js';

export type StaffRole = 'moderator' | 'admin';

export interface StaffRoleChange {
  Account: string;
  Role: StaffRole;
  Granted: boolean;
}

export async function changeStaffRole(ctx: Context, superAdminId: string, input: StaffRoleChange): Promise<{ AccountId: string; Roles: string[] }> {
  const auth = ctx.authClient;
  if (!auth.internalKey) throw authUnavailable('REGISTRY_AUTH_INTERNAL_KEY is not configured');
  const res = await callAuth(auth, 'POST', '/internal/staff-roles', {
    body: { account: input.Account.trim(), role: input.Role, granted: input.Granted, on_behalf_of: `developer:${superAdminId}` },
    headers: { 'x-internal-key': auth.internalKey },
  });
  if (res.status === 200) return { AccountId: res.body.id, Roles: res.body.roles };
  if (res.status === 404) throw fail('user_not_found', 'No platform account has this email or id');
  if (res.status === 400) throw fail('validation_failed', 'The account must be an email or an account id', { Field: 'Account' });
  throw authUnavailable(`HTTP ${res.status}${res.body?.code ? ` ${res.body.code}` : ''}`);
}
