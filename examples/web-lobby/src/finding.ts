/**
 * The lobby's "finding players" panel (docs/social.md, "Finding players"): people the player may know (friends of
 * friends, recent players) with Add friend, and open parties of the game with Join; a party leader lists their
 * party with a mode. Read on demand (Refresh / Find): suggestions and listings have no events.
 */
import type { OpenParty, PlatformClient, Suggestion } from '@platform/client';

/** What the panel borrows from the page (main.ts). */
export interface FindingHost {
  client: PlatformClient;
  act(fn: () => Promise<void>): Promise<void>;
  status(text: string, error?: boolean): void;
  item(text: string, buttons?: Record<string, () => Promise<void>>): HTMLLIElement;
  /** The party the player is in (its id), if any. */
  partyId(): string | undefined;
  /** After joining a listed party: show it. */
  enterParty(partyId: string): Promise<void>;
}

const el = (id: string) => document.getElementById(id) as HTMLElement;
const value = (id: string) => (el(id) as HTMLInputElement).value.trim();

/** How a suggestion reads: who, and why. */
const why = (s: Suggestion) =>
  s.source === 'friendsOfFriends' ? `${s.mutualFriends} mutual friend${s.mutualFriends === 1 ? '' : 's'}` : s.source === 'recentPlayer' ? 'played together' : 'platform friend';
const describeParty = (p: OpenParty) => `${p.leaderFullHandle}'s party${p.mode ? ` — ${p.mode}` : ''} — ${p.freeSlots} free`;

export class FindingPanel {
  constructor(private readonly host: FindingHost) {}

  private get social() {
    return this.host.client.social;
  }

  wire(): void {
    el('suggestions-go').onclick = () => this.host.act(() => this.refreshSuggestions());
    el('parties-go').onclick = () => this.host.act(() => this.findParties());
    el('list-party').onclick = () => this.host.act(() => this.listParty());
  }

  async refreshSuggestions(): Promise<void> {
    const { suggestions } = await this.social.suggestions({ limit: 20 });
    el('suggestions').replaceChildren(
      ...suggestions.map((s) =>
        this.host.item(`${s.fullHandle} (${why(s)})`, {
          'Add friend': async () => {
            await this.social.sendFriendRequest({ toPublicId: s.publicId });
            this.host.status(`Friend request sent to ${s.fullHandle}`);
            await this.refreshSuggestions();
          },
        }),
      ),
    );
    if (!suggestions.length) el('suggestions').replaceChildren(this.host.item('Nobody to suggest yet'));
  }

  async findParties(): Promise<void> {
    const mode = value('parties-mode');
    const { parties } = await this.social.openParties(mode ? { mode } : {});
    el('open-parties').replaceChildren(
      ...parties.map((p) =>
        this.host.item(describeParty(p), {
          Join: async () => {
            await this.social.joinParty(p.partyId);
            await this.host.enterParty(p.partyId);
            this.host.status('You joined the party');
            await this.findParties();
          },
        }),
      ),
    );
    if (!parties.length) el('open-parties').replaceChildren(this.host.item('No open parties'));
  }

  /** The leader lists their party (made Public, so anyone of the game may join) with the mode typed. */
  async listParty(): Promise<void> {
    const partyId = this.host.partyId();
    if (!partyId) return this.host.status('Create a party first', true);
    const mode = value('list-mode');
    await this.social.setPartyVisibility(partyId, 'Public');
    await this.social.listParty(partyId, mode ? { mode } : {});
    this.host.status(`Party listed${mode ? ` for ${mode}` : ''}`);
  }
}
