/**
 * Staff operations (moderators and admins: the `moderator` / `admin` role of the access token): the report queue
 * of the social service and the account lookup and sanctions of the auth service (docs/auth.md, "Sanctions";
 * docs/social.md, "Moderation queue"). A player calling these gets 403 `moderator_required`. The web console
 * (packages/console) is built on them.
 */
import { seg, type HttpService } from './http.js';
import type { AuthBody, AuthQuery, AuthResult, SocialBody, SocialResult } from './types.js';

type Authed = <T>(call: (token: string) => Promise<T>) => Promise<T>;

export type ReportView = SocialResult<'/v1/moderation/reports/{reportId}', 'get'>;
export type ReportPage = SocialResult<'/v1/moderation/reports', 'get'>;
export type ReportState = ReportView['state'];
export type ReportMove = SocialBody<'/v1/moderation/reports/{reportId}/state', 'post'>;
export interface ReportQuery {
  state?: ReportState;
  targetPublicId?: string;
  reason?: string;
  /** The report whose moderation action set this sanction (an appeal names the sanction). */
  sanctionId?: string;
  cursor?: string;
  limit?: number;
}

/** A sanction on an account (auth). `active`: in force now (not lifted, not expired). */
export type Sanction = AuthResult<'/admin/sanctions/{sanctionId}/lift', 'post', SanctionShape>;
export type RoleList = AuthBody<'/admin/accounts/{id}/roles', 'put'>['roles'];
/** What an admin's factor reset removed (`resetFactors`). */
export type FactorReset = AuthResult<'/admin/accounts/{id}/factors/reset', 'post', { totp_removed: boolean; passkeys_removed: number; sessions_revoked: number }>;
export type SanctionInput = AuthBody<'/admin/accounts/{id}/sanctions', 'post'>;
export type AccountSummary = AuthResult<'/admin/accounts', 'get', { accounts: AccountSummaryShape[] }>['accounts'][number];
/** An account with its identities, latest sessions, audit trail, sanctions and guest abuse score. */
export type AccountLookup = AuthResult<'/admin/accounts/{id}', 'get', AccountLookupShape>;

// The shapes of docs/auth.md ("Sanctions"), used only should the generated document lack them.
interface SanctionShape {
  id: string;
  account_id: string;
  type: string;
  reason: string;
  created_at: string;
  created_by: string | null;
  expires_at: string | null;
  lifted_at: string | null;
  lifted_by: string | null;
  lift_reason: string | null;
  active: boolean;
}
interface AccountSummaryShape {
  id: string;
  display_name: string | null;
  status: string;
  roles: string[];
  is_guest: boolean;
  created_at: string;
  email: string | null;
}
interface AccountLookupShape {
  account: AccountSummaryShape & { updated_at: string; deleted_at: string | null };
  identities: { id: string; provider: string; provider_user_id: string; email: string | null; verified: boolean; linked_at: string; last_login_at: string | null }[];
  sessions: { id: string; auth_method: string; device_platform: string | null; ip_cidr: string; created_at: string; expires_at: string; revoked_at: string | null }[];
  audit: { id: string; event: string; ip: string | null; node_id: string | null; detail: unknown; at: string }[];
  sanctions: SanctionShape[];
  /** The guest abuse score (staff only; docs/auth.md, "Guest abuse score"). */
  guest_score: {
    score: number;
    level: 'normal' | 'slow' | 'refuse';
    reasons: { subject: 'account' | 'device' | 'network'; signal: string; value: number; events: number; last_at: string }[];
  };
}
/** A moderator's action on a report: a sanction on the reported player, and the report moved to `actioned`. */
/** An appeal as staff see it (docs/auth.md, "Appeals"): with the account, the sanction and who decided. */
export type StaffAppeal = AuthResult<'/admin/appeals/{appealId}/decide', 'post', never>;
export type AppealStatus = NonNullable<AuthQuery<'/admin/appeals'>['status']>;
export type AppealDecision = AuthBody<'/admin/appeals/{appealId}/decide', 'post'>;
export interface AppealQuery {
  /** `open` by default. */
  status?: AppealStatus;
  limit?: number;
  cursor?: string;
}

/** A group as staff see it (any game), with every staff action on it; `group` is null once disbanded. */
export type StaffGroupView = SocialResult<'/v1/moderation/groups/{id}', 'get'>;
/** `rename` (with a `name`), `clear_description` or `disband`, always with a `reason`. */
export type GroupStaffAction = SocialBody<'/v1/moderation/groups/{id}/actions', 'post'>;

export type ReportActionInput = SocialBody<'/v1/moderation/reports/{reportId}/actions', 'post'>;
export type ReportActionResult = SocialResult<'/v1/moderation/reports/{reportId}/actions', 'post'>;

/** Staff tools (`client.moderation`, moderator or admin role): the report queue on social, account lookup and sanctions on auth. */
export class ModerationApi {
  constructor(
    private readonly auth: HttpService,
    private readonly social: HttpService,
    private readonly authed: Authed,
  ) {}

  // ---- social: the report queue ----
  /** The queue, newest first; `nextCursor` when more follow. */
  reports(query: ReportQuery = {}): Promise<ReportPage> {
    return this.authed((token) => this.social.request({ method: 'GET', path: '/v1/moderation/reports', query: { ...query }, token }));
  }
  /** One report with the snapshot taken when it was filed. */
  report(reportId: string): Promise<ReportView> {
    return this.authed((token) => this.social.request({ method: 'GET', path: `/v1/moderation/reports/${seg(reportId)}`, token }));
  }
  /** Moves a report to another state (`received`, `in_review`, `dismissed` …) with an optional note. */
  moveReport(reportId: string, move: ReportMove): Promise<ReportView> {
    return this.authed((token) => this.social.request({ method: 'POST', path: `/v1/moderation/reports/${seg(reportId)}/state`, body: move, token }));
  }
  /** Sanctions the reported player (through auth) and moves the report to `actioned`. */
  actOnReport(reportId: string, input: ReportActionInput): Promise<ReportActionResult> {
    return this.authed((token) => this.social.request({ method: 'POST', path: `/v1/moderation/reports/${seg(reportId)}/actions`, body: input, token }));
  }

  /** A group of any game, with the staff actions taken on it (also after a disband). */
  group(groupId: string): Promise<StaffGroupView> {
    return this.authed((token) => this.social.request({ method: 'GET', path: `/v1/moderation/groups/${seg(groupId)}`, token }));
  }
  /** Renames the group, clears its description or disbands it; the action is kept with the text before and after. */
  actOnGroup(groupId: string, action: GroupStaffAction): Promise<StaffGroupView> {
    return this.authed((token) => this.social.request({ method: 'POST', path: `/v1/moderation/groups/${seg(groupId)}/actions`, body: action, token }));
  }

  // ---- auth: accounts and sanctions ----
  /** By exact email, exact account id, or display-name prefix. */
  searchAccounts(q: string, limit?: number): Promise<{ accounts: AccountSummary[] }> {
    return this.authed((token) => this.auth.request({ method: 'GET', path: '/admin/accounts', query: { q, limit }, token }));
  }
  /** An account with its identities, latest sessions, audit trail, sanctions and guest abuse score. */
  account(accountId: string): Promise<AccountLookup> {
    return this.authed((token) => this.auth.request({ method: 'GET', path: `/admin/accounts/${seg(accountId)}`, token }));
  }
  /** An account's sanctions, active and past. */
  sanctions(accountId: string): Promise<{ sanctions: Sanction[] }> {
    return this.authed((token) => this.auth.request({ method: 'GET', path: `/admin/accounts/${seg(accountId)}/sanctions`, token }));
  }
  /** Sanctions an account (`ban`, `chat` or a game feature, with a reason and a duration or an end). */
  sanction(accountId: string, input: SanctionInput): Promise<Sanction> {
    return this.authed((token) => this.auth.request({ method: 'POST', path: `/admin/accounts/${seg(accountId)}/sanctions`, body: input, token }));
  }
  /** Admins only: the account's whole role list (`player`, `moderator`, `admin`); tokens issued from now on carry it. */
  setRoles(accountId: string, roles: RoleList): Promise<AccountSummary> {
    return this.authed((token) => this.auth.request({ method: 'PUT', path: `/admin/accounts/${seg(accountId)}/roles`, body: { roles }, token }));
  }
  /**
   * Admins only: removes the account's authenticator app and passkeys for an owner who lost them (after support
   * checked who asks); every session of the account ends, the owner is emailed, and `reason` goes to the audit log.
   */
  resetFactors(accountId: string, reason: string): Promise<FactorReset> {
    return this.authed((token) => this.auth.request({ method: 'POST', path: `/admin/accounts/${seg(accountId)}/factors/reset`, body: { reason }, token }));
  }
  /** The appeals queue: one status (`open` by default), oldest first, with each sanction; `next_cursor` pages on. */
  appeals(query: AppealQuery = {}): Promise<{ appeals: StaffAppeal[]; next_cursor: string | null }> {
    return this.authed((token) => this.auth.request({ method: 'GET', path: '/admin/appeals', query: { ...query }, token }));
  }
  /**
   * Decides an open appeal once: `uphold`, `shorten` (with `expires_at` or `duration_seconds`: an earlier end) or
   * `lift`; `response` is what the player reads in the inbox (never who decided).
   */
  decideAppeal(appealId: string, decision: AppealDecision): Promise<StaffAppeal> {
    return this.authed((token) => this.auth.request({ method: 'POST', path: `/admin/appeals/${seg(appealId)}/decide`, body: decision, token }));
  }
  /** Ends a sanction early, with an optional reason (kept in the audit trail). */
  liftSanction(sanctionId: string, reason?: string): Promise<Sanction> {
    const body = reason ? { reason } : {};
    return this.authed((token) => this.auth.request({ method: 'POST', path: `/admin/sanctions/${seg(sanctionId)}/lift`, body, token }));
  }
}
