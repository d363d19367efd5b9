// Revocation through the outbox alone (separate state stores: `npm start`, separate deployments). Scenarios:
// revocation-support.ts; the notices social's internal route refuses: packages/social/test/realtime/revocation.test.ts.
import { scenarios } from './revocation-support.js';

scenarios('revocation through the outbox (no shared bus)', {});
