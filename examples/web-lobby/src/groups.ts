/**
 * The lobby's groups panel (docs/social.md, "Groups"): create a group, find the game's groups, join an open one or
 * ask to join a `request` one, see one's groups and group invites (Join / Decline); in the group shown, its members
 * with their roles (Kick where the player may), its join requests (Accept / Deny) and an Invite box, where the
 * player's role allows. Live: the group events re-read what they are about.
 */
import type { ChatMessage, Group, GroupInvite, GroupJoinPolicy, GroupJoinRequest, GroupMemberPage, GroupPermission, GroupRole, PlatformClient, RealtimeClient } from '@platform/client';

/** What the panel borrows from the page (main.ts). */
export interface PanelHost {
  client: PlatformClient;
  /** The signed-in player's publicId. */
  me(): string;
  /** Runs a user action; a failure shows on the status line. */
  act(fn: () => Promise<void>): Promise<void>;
  status(text: string, error?: boolean): void;
  item(text: string, buttons?: Record<string, () => Promise<void>>): HTMLLIElement;
}

const MEMBERS_PAGE = 50;

interface Shown {
  group: Group;
  roles: Map<string, GroupRole>;
}

const el = (id: string) => document.getElementById(id) as HTMLElement;
const value = (id: string) => (el(id) as HTMLInputElement | HTMLSelectElement).value.trim();
const title = (g: Group) => `${g.name} [${g.tag}]`;
/** Whether the player's role in a group holds the permission. */
const mayIn = (g: Shown, permission: GroupPermission) => Boolean(g.group.myRole && g.roles.get(g.group.myRole)?.permissions.includes(permission));

export class GroupsPanel {
  /** The group shown below the lists (one of the player's), and its roles by name. */
  private shown: Shown | undefined;
  /** Counts openGroup calls: a read that a later call overtook is dropped. */
  private opened = 0;
  private membersCursor: string | null = null;
  /** The handles of the shown group's members read so far (chat lines name their writer). */
  private handles = new Map<string, string>();
  private shownMessages = new Set<string>();
  private rt: RealtimeClient | undefined;

  constructor(private readonly host: PanelHost) {}

  private get social() {
    return this.host.client.social;
  }
  private isShown(groupId: string): boolean {
    return this.shown?.group.groupId === groupId;
  }
  private may(permission: GroupPermission): boolean {
    return Boolean(this.shown && mayIn(this.shown, permission));
  }
  private rank(role: string): number {
    return this.shown?.roles.get(role)?.rank ?? 0;
  }

  /** Wires the create and find controls (once, at start). */
  wire(): void {
    el('create-group').onclick = () => this.host.act(() => this.create());
    el('group-search-go').onclick = () => this.host.act(() => this.find());
    el('members-more').onclick = () => this.host.act(() => this.moreMembers());
    el('group-invite').onclick = () => this.host.act(() => this.invite());
    el('group-chat-send').onclick = () => this.host.act(async () => this.sendChat());
  }

  /** Sends a line to the shown group over the socket; it comes back as a chatMessage event, to this socket too. */
  private sendChat(): void {
    const text = value('group-chat-text');
    if (!this.shown || !text || !this.rt) return;
    this.rt.sendChat('group', this.shown.group.groupId, text);
    (el('group-chat-text') as HTMLInputElement).value = '';
  }

  private showMessage(m: ChatMessage): void {
    if (this.shownMessages.has(m.messageId)) return;
    this.shownMessages.add(m.messageId);
    el('group-messages').append(this.host.item(`${this.handles.get(m.fromPublicId) ?? m.fromPublicId}: ${m.body}`));
  }

  /** Everything the panel shows, read again over HTTP. */
  async reload(): Promise<void> {
    await Promise.all([this.refreshMine(), this.refreshInvites()]);
    if (this.shown) await this.openGroup(this.shown.group.groupId);
  }

  /** Subscribes to the group events of a realtime client: each re-reads what it is about. */
  listen(rt: RealtimeClient): void {
    this.rt = rt;
    rt.on('chatMessage', (m) => {
      if (m.channel === 'group' && this.isShown(m.channelId)) this.showMessage(m);
    });
    const { act, status, me } = this.host;
    const reread = (groupId: string) => async () => {
      await this.refreshMine();
      if (this.isShown(groupId)) await this.openGroup(groupId);
    };
    rt.on('groupJoinRequested', (e) => {
      status(`${e.fullHandle} asks to join your group`);
      if (this.isShown(e.groupId)) void act(() => this.openGroup(e.groupId));
    });
    rt.on('groupInviteReceived', (e) => {
      status(`You are invited to ${e.groupName} [${e.groupTag}]`);
      void act(() => this.refreshInvites());
    });
    rt.on('groupMemberJoined', (e) => {
      void act(async () => {
        const g = (await this.refreshMine()).find((x) => x.groupId === e.groupId);
        if (g && e.member.publicId === me()) status(`You joined ${title(g)}`);
        if (this.isShown(e.groupId)) await this.openGroup(e.groupId);
      });
    });
    rt.on('groupMemberLeft', (e) => {
      if (e.publicId === me() && e.reason !== 'left') status(`You were ${e.reason === 'banned' ? 'banned' : 'removed'} from a group`);
      void act(reread(e.groupId));
    });
    rt.on('groupRoleChanged', (e) => void act(reread(e.groupId)));
    rt.on('groupDisbanded', (e) => {
      status(`${e.name} was disbanded`);
      void act(reread(e.groupId));
    });
  }

  private async refreshMine(): Promise<Group[]> {
    const { groups } = await this.social.myGroups();
    el('my-groups').replaceChildren(...groups.map((g) => this.host.item(`${title(g)} (${g.myRole})`, { Open: () => this.openGroup(g.groupId) })));
    if (this.shown && !groups.some((g) => this.isShown(g.groupId))) this.closeGroup();
    return groups;
  }

  private async refreshInvites(): Promise<void> {
    const { invites } = await this.social.groupInvites();
    const answer = (accept: boolean, i: GroupInvite) => async () => {
      if (!accept) await this.social.declineGroupInvite(i.inviteId);
      else {
        await this.social.acceptGroupInvite(i.inviteId);
        await Promise.all([this.refreshMine(), this.openGroup(i.groupId)]);
      }
      await this.refreshInvites();
    };
    el('group-invites').replaceChildren(
      ...invites.map((i) => this.host.item(`Invite to ${i.groupName} [${i.groupTag}]`, { Join: answer(true, i), Decline: answer(false, i) })),
    );
  }

  /** Invites a player by full handle to the group shown (permission `invite`). */
  private async invite(): Promise<void> {
    const handle = value('group-invite-handle');
    if (!this.shown || !handle) return;
    await this.social.inviteToGroup(this.shown.group.groupId, { toHandle: handle });
    this.host.status(`Invited ${handle} to ${title(this.shown.group)}`);
  }

  private closeGroup(): void {
    this.shown = undefined;
    this.opened++;
    el('group').hidden = true;
  }

  /**
   * Shows a group of the player's: its roles, first page of members and (for those who may decide them) its join
   * requests, read together and drawn at once; a later call (an event while an action runs) supersedes an earlier.
   */
  private async openGroup(groupId: string): Promise<void> {
    const mine = ++this.opened;
    const [group, { roles }] = await Promise.all([this.social.group(groupId), this.social.groupRoles(groupId)]);
    if (mine !== this.opened) return;
    if (!group.myRole) return this.closeGroup();
    const next: Shown = { group, roles: new Map(roles.map((r) => [r.name, r])) };
    const [page, requests, history] = await Promise.all([
      this.social.groupMembers(groupId, { limit: MEMBERS_PAGE }),
      mayIn(next, 'accept_requests') ? this.social.groupRequests(groupId) : undefined,
      this.social.chatHistory('group', groupId),
    ]);
    if (mine !== this.opened) return;
    if (!this.isShown(groupId)) {
      el('group-messages').replaceChildren();
      this.shownMessages.clear();
      this.handles.clear();
    }
    this.shown = next;
    el('group-title').textContent = `${title(group)}: ${group.joinPolicy}, ${group.memberCount}/${group.memberLimit} members, you are ${group.myRole}`;
    el('group').hidden = false;
    el('group-members').replaceChildren();
    this.showMembers(page);
    el('group-requests-box').hidden = !requests;
    el('group-invite-box').hidden = !mayIn(next, 'invite');
    this.showRequests(requests?.requests ?? []);
    for (const m of history.messages.reverse()) this.showMessage(m);
  }

  /** Appends a page of members (joining order), each with Kick where the player may kick them. */
  private showMembers(page: GroupMemberPage): void {
    const myRank = this.rank(this.shown?.group.myRole ?? 'member');
    for (const m of page.members) {
      this.handles.set(m.publicId, m.fullHandle);
      const kickable = m.publicId !== this.host.me() && this.may('kick') && this.rank(m.role) < myRank;
      const buttons: Record<string, () => Promise<void>> = kickable ? { Kick: () => this.kick(m.publicId, m.fullHandle) } : {};
      el('group-members').append(this.host.item(`${m.fullHandle} (${m.role})`, buttons));
    }
    this.membersCursor = page.nextCursor;
    el('members-more').hidden = !this.membersCursor;
  }

  private async moreMembers(): Promise<void> {
    if (!this.shown || !this.membersCursor) return;
    const mine = this.opened;
    const page = await this.social.groupMembers(this.shown.group.groupId, { limit: MEMBERS_PAGE, cursor: this.membersCursor });
    if (mine === this.opened) this.showMembers(page);
  }

  private async kick(publicId: string, fullHandle: string): Promise<void> {
    if (!this.shown) return;
    const group = this.shown.group;
    await this.social.kickFromGroup(group.groupId, publicId);
    this.host.status(`${fullHandle} was removed from ${title(group)}`);
    await this.openGroup(group.groupId);
  }

  private showRequests(requests: GroupJoinRequest[]): void {
    if (!this.shown) return;
    const group = this.shown.group;
    const decide = (accept: boolean, r: GroupJoinRequest) => async () => {
      if (accept) await this.social.acceptGroupRequest(group.groupId, r.publicId);
      else await this.social.denyGroupRequest(group.groupId, r.publicId);
      this.host.status(accept ? `${r.fullHandle} joined ${title(group)}` : `You turned ${r.fullHandle} away`);
      await this.openGroup(group.groupId);
    };
    el('group-requests').replaceChildren(...requests.map((r) => this.host.item(`${r.fullHandle} asks to join`, { Accept: decide(true, r), Deny: decide(false, r) })));
  }

  private async find(): Promise<void> {
    const prefix = value('group-search');
    const { groups } = await this.social.findGroups({ limit: 20, ...(prefix ? { prefix } : {}) });
    el('group-results').replaceChildren(
      ...groups.map((g) => {
        const label = `${title(g)}: ${g.joinPolicy}, ${g.memberCount} members`;
        if (g.myRole) return this.host.item(label, { Open: () => this.openGroup(g.groupId) });
        if (g.joinPolicy === 'invite') return this.host.item(`${label} (by invite only)`);
        return this.host.item(label, { [g.joinPolicy === 'open' ? 'Join' : 'Ask to join']: () => this.join(g) });
      }),
    );
    if (!groups.length) this.host.status('No group found');
  }

  private async join(g: Group): Promise<void> {
    const r = await this.social.joinGroup(g.groupId);
    if (r.state === 'requested') return this.host.status(`Asked to join ${title(g)}`);
    this.host.status(`You joined ${title(g)}`);
    await Promise.all([this.refreshMine(), this.openGroup(g.groupId)]);
  }

  private async create(): Promise<void> {
    const joinPolicy = value('group-policy') as GroupJoinPolicy;
    const g = await this.social.createGroup({ name: value('group-name'), tag: value('group-tag'), joinPolicy });
    this.host.status(`Group ${title(g)} created`);
    await Promise.all([this.refreshMine(), this.openGroup(g.groupId)]);
  }
}
