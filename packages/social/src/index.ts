export { buildApp, type SocialDeps } from './app.js';
export { readSocialConfig, mergedEnv, type SocialConfig } from './config.js';
export { startSocial } from './main.js';
export { createEventPublisher, userChannel, partyChannel, type EventPublisher, type EventEnvelope, type EventType } from './services/events.js';
export { sendChatMessage, purgeChat } from './services/chat.js';
export { heartbeat, setPresence } from './services/presence.js';
export { currentPartyId } from './services/parties.js';
export { isMuted } from './services/friends.js';
export type { Ctx, GameContext, UserRow } from './services/context.js';
