/**
 * A web game lobby on @platform/client, in one small script: guest sign-in, friends (search, requests, live
 * acceptance), a party (create, invite, join), party chat, presence, groups (groups.ts), and suggestions and open
 * parties (finding.ts). Everything live
 * arrives over the realtime socket; the page re-reads over HTTP what an event says has changed.
 *
 * The page reads its settings from ./config.json (served next to it): { authUrl, socialUrl, clientKey? }.
 */
import {
  createClient,
  guestRestriction,
  PlatformError,
  webStorage,
  type ChatMessage,
  type FriendSummary,
  type Party,
  type PlatformClient,
  type PresenceState,
  type RealtimeClient,
} from '@platform/client';
import { GroupsPanel } from './groups.js';
import { FindingPanel } from './finding.js';

interface LobbyConfig {
  authUrl: string;
  socialUrl: string;
  /** The game's public client key (the registry's GameView.ClientKey); optional. */
  clientKey?: string;
}

const el = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const input = (id: string) => el<HTMLInputElement>(id);

let client: PlatformClient;
let rt: RealtimeClient;
let groups: GroupsPanel;
let myPublicId = '';
const friends = new Map<string, FriendSummary>();
let party: Party | undefined;
const shownMessages = new Set<string>();
/** Whether this socket got `caughtUp` or `resync`: the server resumed it (or told it to reload). */
let caughtUp = false;

function status(text: string, error = false): void {
  el('status').textContent = text;
  el('status').classList.toggle('error', error);
}

/** Runs a user action; a failure shows its code and message instead of escaping. */
async function act(fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    // A feature refused to guests: say what upgrading (linking an email) unlocks.
    const restricted = guestRestriction(e);
    if (restricted) return status(`Upgrade your guest account to: ${restricted.unlocks}`, true);
    status(e instanceof PlatformError ? `${e.code}: ${e.message}` : String(e), true);
  }
}

/** A list item: its text, then buttons that run actions. */
function item(text: string, buttons: Record<string, () => Promise<void>> = {}): HTMLLIElement {
  const li = document.createElement('li');
  li.append(text);
  for (const [label, fn] of Object.entries(buttons)) {
    const b = document.createElement('button');
    b.textContent = label;
    b.onclick = () => act(fn);
    li.append(b);
  }
  return li;
}

const handleOf = (publicId: string) =>
  party?.members.find((m) => m.publicId === publicId)?.fullHandle ?? friends.get(publicId)?.fullHandle ?? publicId;

// ---- friends and requests ----

function renderFriends(): void {
  el('friends').replaceChildren(
    ...[...friends.values()].map((f) => {
      const activity = f.richPresence?.activity ? ` — ${f.richPresence.activity}` : '';
      const invite: Record<string, () => Promise<void>> = party ? { Invite: () => inviteToParty(f.publicId, f.fullHandle) } : {};
      const li = item(f.fullHandle, invite);
      const presence = document.createElement('span');
      presence.className = 'presence';
      presence.textContent = `(${f.presenceState}${activity})`;
      li.insertBefore(presence, li.firstElementChild);
      return li;
    }),
  );
}

async function refreshFriends(): Promise<void> {
  friends.clear();
  for (const f of await client.social.friends()) friends.set(f.publicId, f);
  renderFriends();
}

async function refreshRequests(): Promise<void> {
  const incoming = await client.social.friendRequests('incoming');
  el('requests').replaceChildren(
    ...incoming.map((r) =>
      item(r.fullHandle, {
        Accept: async () => {
          await client.social.acceptFriendRequest(r.publicId);
          status(`You and ${r.fullHandle} are friends`);
          await Promise.all([refreshRequests(), refreshFriends()]);
        },
      }),
    ),
  );
}

async function search(): Promise<void> {
  const found = await client.social.searchUsers(input('search').value.trim());
  el('results').replaceChildren(
    ...found.map((u) =>
      item(u.fullHandle, {
        'Add friend': async () => {
          const r = await client.social.sendFriendRequest({ toPublicId: u.publicId });
          status(r.state === 'accepted' ? `You and ${u.fullHandle} are friends` : `Friend request sent to ${u.fullHandle}`);
          if (r.state === 'accepted') await refreshFriends();
        },
      }),
    ),
  );
  if (!found.length) status('Nobody found');
}

// ---- party and chat ----

function renderParty(): void {
  el('party').hidden = !party;
  el('create-party').hidden = Boolean(party);
  if (party) el('members').replaceChildren(...party.members.map((m) => item(m.isLeader ? `${m.fullHandle} (leader)` : m.fullHandle)));
  renderFriends(); // the Invite buttons come and go with the party
}

async function enterParty(partyId: string): Promise<void> {
  party = await client.social.party(partyId);
  el('messages').replaceChildren();
  shownMessages.clear();
  const history = await client.social.chatHistory('party', partyId);
  for (const m of history.messages.reverse()) showMessage(m);
  renderParty();
}

function showMessage(m: ChatMessage): void {
  if (shownMessages.has(m.messageId)) return;
  shownMessages.add(m.messageId);
  el('messages').append(item(`${handleOf(m.fromPublicId)}: ${m.body}`));
}

async function inviteToParty(publicId: string, fullHandle: string): Promise<void> {
  if (!party) return;
  await client.social.inviteToParty(party.partyId, { toPublicId: publicId });
  status(`Invited ${fullHandle} to the party`);
}

async function refreshInvites(): Promise<void> {
  const invites = (await client.social.invites('incoming')).filter((i) => i.kind === 'party' && i.targetId);
  el('invites').replaceChildren(
    ...invites.map((i) =>
      item(`Party invite from ${handleOf(i.fromPublicId)}`, {
        Join: async () => {
          await client.social.joinParty(i.targetId as string, i.inviteId);
          await enterParty(i.targetId as string);
          await refreshInvites();
          status('You joined the party');
        },
      }),
    ),
  );
}

function sendChat(): void {
  const text = input('chat-text').value.trim();
  if (!party || !text) return;
  rt.sendChat('party', party.partyId, text); // comes back as a chatMessage event, to this socket too
  input('chat-text').value = '';
}

// ---- realtime ----

/** Each event re-reads or patches what it is about. */
function listen(): void {
  rt.on('friendRequestReceived', (r) => {
    status(`${r.fullHandle} wants to be friends`);
    void act(refreshRequests);
  });
  rt.on('friendRequestAccepted', (r) => {
    status(`${r.fullHandle} accepted your friend request`);
    void act(refreshFriends);
  });
  for (const type of ['friendRemoved', 'friendProfileChanged'] as const) rt.on(type, () => void act(refreshFriends));
  rt.on('friendPresenceChanged', (p) => {
    const f = friends.get(p.publicId);
    if (!f) return void act(refreshFriends);
    f.presenceState = p.state === 'invisible' ? 'offline' : p.state;
    if (p.richPresence) f.richPresence = p.richPresence;
    else delete f.richPresence;
    renderFriends();
  });
  rt.on('partyInviteReceived', () => void act(refreshInvites));
  for (const type of ['partyMemberJoined', 'partyMemberLeft', 'partyLeaderChanged'] as const) {
    rt.on(type, (e) => {
      if (party?.partyId === e.partyId) void act(() => enterParty(e.partyId));
    });
  }
  rt.on('chatMessage', (m) => {
    if (m.channel === 'party' && m.channelId === party?.partyId) showMessage(m);
  });
  rt.on('presenceUpdated', (p) => {
    el('my-presence').textContent = `You are ${p.state}${p.richPresence?.activity ? ` — ${p.richPresence.activity}` : ''}`;
  });
  groups.listen(rt);
  rt.on('error', (e) => status(`${e.code}: ${e.message}`, true));
  rt.on('reconnecting', (r) => {
    caughtUp = false;
    status(`Connection lost; reconnecting in ${Math.round(r.delayMs / 1000)} s…`, true);
  });
  // A reconnect resumes: what was missed while away is replayed (as the events above) before `open`, then
  // `caughtUp`. Only when the server no longer keeps the gap (`resync`), or keeps no replay log at all (no
  // `caughtUp` before `open`), is everything re-read over HTTP.
  rt.on('caughtUp', () => {
    caughtUp = true;
  });
  rt.on('resync', () => {
    caughtUp = true;
    void act(reloadAll);
  });
  rt.on('open', ({ reconnected }) => {
    if (!reconnected) return;
    status(caughtUp ? 'Reconnected: caught up on what was missed' : 'Reconnected');
    if (!caughtUp) void act(reloadAll);
  });
}

/** Everything the page shows, read again over HTTP. */
async function reloadAll(): Promise<void> {
  await Promise.all([refreshFriends(), refreshRequests(), refreshInvites(), groups.reload()]);
  if (party) await enterParty(party.partyId);
}

// ---- sign-in and start ----

async function signIn(): Promise<void> {
  status('Signing in…');
  await client.auth.signInAsGuest(); // the same guest again after a reload (the credentials are in sessionStorage)
  const name = input('name').value.trim();
  let me = await client.social.me();
  if (name && name !== me.profile.displayName) me = await client.social.changeName(name);
  el('handle').textContent = me.fullHandle;
  myPublicId = me.publicId;
  rt = client.realtime();
  listen();
  await rt.connect();
  await Promise.all([refreshFriends(), refreshRequests(), refreshInvites(), groups.reload()]);
  el('sign-in').hidden = true;
  el('lobby').hidden = false;
  renderParty();
  status(`Welcome, ${me.fullHandle}`);
}

async function main(): Promise<void> {
  const config = (await (await fetch('config.json')).json()) as LobbyConfig;
  // sessionStorage: one guest per tab, so two tabs are two players (localStorage would share one guest).
  client = createClient({ ...config, storage: webStorage(sessionStorage), platform: 'web' });
  groups = new GroupsPanel({ client, me: () => myPublicId, act, status, item });
  groups.wire();
  new FindingPanel({ client, act, status, item, partyId: () => party?.partyId, enterParty }).wire();
  el('guest').onclick = () => act(signIn);
  el('search-go').onclick = () => act(search);
  el('create-party').onclick = () =>
    act(async () => {
      const created = await client.social.createParty();
      await enterParty(created.partyId);
      status('Party created: invite your friends');
    });
  el('chat-send').onclick = () => act(async () => sendChat());
  el('set-presence').onclick = () =>
    act(async () => {
      const activity = input('activity').value.trim();
      rt.updatePresence({ state: el<HTMLSelectElement>('state').value as PresenceState, richPresence: activity ? { activity } : null });
    });
  status('Ready: pick a name and sign in');
}

void act(main);
