// Revocation through the shared bus alone (social on auth's state store, as with one Redis in production; no
// outbox target). Scenarios: revocation-support.ts.
import { scenarios } from './revocation-support.js';

scenarios('revocation through the shared bus (no outbox)', { sharedBus: true, authEnv: { AUTH_OUTBOX_TARGETS: '' } });
