/**
 * Auth's notices as they leave the service (docs/decisions/0020-versioned-messages.md): on the bus
 * (`auth:revocation`, `auth:sanction`, `auth:key_rotation`) and in the outbox (stored, then POSTed to every
 * AUTH_OUTBOX_TARGETS URL as `{id, ...payload}`). Version 1 is the notice as docs/auth.md describes it.
 */
import { defineWire } from '@platform/kit';

type Notice = Record<string, unknown>;

/** On the bus: version 1 with `v` (the readers of the release before pick the members they know). */
export const BUS_NOTICE_WIRE = defineWire<Notice>({ name: 'auth.busNotice', read: { 1: (m) => m }, writes: 1, write: (n) => n });

/**
 * In the outbox: version 1 written without `v`, because social's auth-events route of the release before refused
 * unknown members (its schema had additionalProperties false) and an outbox row outlives the node that wrote it (an
 * auth node of the release before may deliver it). The release after this one writes `v: 1`: social reads it since
 * this release.
 */
export const OUTBOX_NOTICE_WIRE = defineWire<Notice>({ name: 'auth.outboxNotice', read: { 1: (m) => m }, writes: 1, write: (n) => n, bareV1: true });
