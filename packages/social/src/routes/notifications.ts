/**
 * The caller's notification inbox (/v1/notifications), and the server-to-server way to address a
 * moderation notice to a user (/v1/internal/notifications, a server-role token as for the auth notices).
 */
import { serviceSubject, type App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../context.js';
import { socialError } from '../services/errors.js';
import {
  countUnread,
  DEFAULT_PAGE,
  listNotifications,
  MAX_PAGE,
  notifyModeration,
  readAllNotifications,
  readNotification,
  removeNotification,
} from '../services/notifications.js';
import { requireUser, userForAccountNotice } from '../services/users.js';
import { NotificationDto } from './schemas.js';
import { ANY_ROUTE, BODY, CALLER, CallerHeaders, errorResponses, NoContent, VALIDATED } from './responses.js';

const Params = Type.Object({ notificationId: Type.String({ minLength: 1, maxLength: 64 }) });

const NotificationPage = Type.Object({
  notifications: Type.Array(NotificationDto),
  nextCursor: Type.Optional(Type.String({ description: 'Absent on the last page; pass it as `cursor` for the next (older) page' })),
  unreadCount: Type.Integer({ minimum: 0, description: 'Unread notifications of the caller in all (whatever the filter)' }),
});
const UnreadCount = Type.Object({ unreadCount: Type.Integer({ minimum: 0 }) });

/** The marking routes take no fields: no body, or `{}` (anything else is refused, not ignored). */
const NoFields = Type.Object({}, { additionalProperties: false });
const noBodyIsEmpty = async (req: { body: unknown }) => {
  req.body ??= {};
};

export function notificationRoutes(app: App, ctx: Ctx): void {
  app.get(
    '/v1/notifications',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['notifications'],
        summary: 'The inbox, newest first, a page at a time',
        headers: CallerHeaders,
        querystring: Type.Object(
          {
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, description: `Page size (default ${DEFAULT_PAGE})` })),
            cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'The nextCursor of the page before (opaque)' })),
            unread: Type.Optional(Type.Boolean({ description: 'true: unread notifications only' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: NotificationPage, ...errorResponses(CALLER, VALIDATED, 'invalid_cursor') },
      },
    },
    async (req) => listNotifications(ctx, req.user, req.query),
  );

  app.get(
    '/v1/notifications/unread-count',
    { config: { caller: 'player' }, schema: { tags: ['notifications'], summary: 'How many notifications are unread (a badge)', headers: CallerHeaders, response: { 200: UnreadCount, ...errorResponses(CALLER) } } },
    async (req) => countUnread(ctx, req.user),
  );

  app.post(
    '/v1/notifications/read-all',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['notifications'],
        summary: 'Mark every notification read',
        headers: CallerHeaders,
        body: NoFields,
        response: { 200: Type.Object({ marked: Type.Integer({ minimum: 0 }), unreadCount: Type.Literal(0) }), ...errorResponses(CALLER, BODY) },
      },
      preValidation: noBodyIsEmpty,
    },
    async (req) => readAllNotifications(ctx, req.user),
  );

  app.post(
    '/v1/notifications/:notificationId/read',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['notifications'],
        summary: 'Mark one notification read (idempotent: the first read time stays)',
        params: Params,
        headers: CallerHeaders,
        body: NoFields,
        response: { 200: NotificationDto, ...errorResponses(CALLER, BODY, 'notification_not_found') },
      },
      preValidation: noBodyIsEmpty,
    },
    async (req) => readNotification(ctx, req.user, req.params.notificationId),
  );

  app.delete(
    '/v1/notifications/:notificationId',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['notifications'],
        summary: 'Delete one notification',
        params: Params,
        headers: CallerHeaders,
        response: { 204: NoContent, ...errorResponses(CALLER, BODY, 'notification_not_found') },
      },
    },
    async (req, reply) => {
      await removeNotification(ctx, req.user, req.params.notificationId);
      return reply.status(204).send(null);
    },
  );

  moderationRoute(app, ctx);
}

const ModerationNotice = Type.Object(
  {
    noticeId: Type.String({ format: 'uuid', description: 'The caller’s id of this notice: a repeat with it stores nothing new' }),
    accountId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The recipient’s account id (auth’s); exactly one of accountId and publicId' })),
    publicId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The recipient’s publicId' })),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
    message: Type.String({ minLength: 1, maxLength: 2000 }),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The caller’s reference (a sanction id, an appeal URL …), shown to the client as is' })),
  },
  { additionalProperties: false },
);

/** The one server identity that may address moderation notices. */
export const MODERATION_CALLER = serviceSubject('moderation');

/** Server to server: a moderation notice into a user's inbox. */
function moderationRoute(app: App, ctx: Ctx): void {
  app.post(
    '/v1/internal/notifications',
    {
      schema: {
        tags: ['internal'],
        summary: 'Address a moderation notice to a user (201 stored and delivered; 200 a repeat of a stored noticeId)',
        security: [{ serverToken: [] }],
        body: ModerationNotice,
        response: {
          200: NotificationDto,
          201: NotificationDto,
          ...errorResponses(ANY_ROUTE, BODY, 'unauthorized', 'forbidden', 'target_required', 'user_not_found', 'name_unavailable', 'key_set_unavailable', 'auth_unavailable', 'database_unavailable', 'state_unavailable'),
        },
      },
      // The moderation tool alone (auth's AUTH_INTERNAL_KEYS name `moderation`); docs/social.md, "Moderation notices".
      config: { noProfile: true, caller: MODERATION_CALLER },
    },
    async (req, reply) => {
      const b = req.body;
      if ((b.accountId === undefined) === (b.publicId === undefined)) throw socialError('target_required', 'Give exactly one of accountId or publicId');
      const message = b.message.trim();
      if (!message) throw socialError('validation_failed', 'message must not be blank', { field: 'message' });
      // An account seen here first gets its profile now (when auth knows it as active), so the notice waits for the player's first visit.
      const recipient = b.accountId !== undefined ? await userForAccountNotice(ctx, b.accountId) : await requireUser(ctx.db, b.publicId!);
      const title = b.title?.trim();
      const r = await notifyModeration(ctx, recipient, b.noticeId.toLowerCase(), {
        message,
        ...(title ? { title } : {}),
        ...(b.reference !== undefined ? { reference: b.reference } : {}),
      });
      reply.status(r.created ? 201 : 200);
      return r.notification;
    },
  );
}
