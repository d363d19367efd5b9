/** The notification inbox through the SDK against the real service: pages, unread, read, delete, the live event. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Notification } from '../src/index.js';
import { player, rejects, usePlatform } from './support.js';

describe('client: the notification inbox against the real service', () => {
  const { tp, sockets } = usePlatform();

  it('lists, pages, counts, marks read and deletes; each new one arrives live as `notification`', async () => {
    const ada = await player(tp, 'Ada');
    const bob = await player(tp, 'Bob');
    const bobRt = bob.realtime();
    sockets.push(bobRt);
    await bobRt.connect();

    const live = bobRt.next('notification');
    const request = await ada.social.sendFriendRequest({ toPublicId: bob.publicId });
    const n: Notification = await live;
    assert.equal(n.kind, 'friendRequestReceived');
    if (n.kind !== 'friendRequestReceived') return;
    // Typed by kind: the actor and the request id to act on.
    assert.deepEqual([n.actor.publicId, n.data.requestId], [ada.publicId, request.requestId]);
    await bob.social.acceptFriendRequest(n.actor.publicId);
    const invited = bobRt.next('notification', (x) => x.kind === 'gameInviteReceived');
    const invite = await ada.social.inviteToGame({ toPublicId: bob.publicId, sessionHandle: 'srv-1' });
    const g = await invited;
    assert.ok(g.kind === 'gameInviteReceived' && g.data.inviteId === invite.inviteId);

    const first = await bob.social.notifications({ limit: 1 });
    assert.deepEqual(first.notifications, [g]);
    assert.equal(first.unreadCount, 2);
    assert.ok(first.nextCursor);
    const second = await bob.social.notifications({ cursor: first.nextCursor });
    assert.deepEqual(second.notifications, [n]);
    assert.equal(second.nextCursor, undefined);
    await rejects(bob.social.notifications({ cursor: 'not-a-cursor' }), 400, 'invalid_cursor');
    await rejects(ada.social.notifications({ cursor: first.nextCursor }), 400, 'invalid_cursor');

    const read = await bob.social.markNotificationRead(n.notificationId);
    assert.ok(read.readAt);
    assert.deepEqual(await bob.social.unreadNotificationCount(), { unreadCount: 1 });
    assert.deepEqual((await bob.social.notifications({ unread: true })).notifications.map((x) => x.notificationId), [g.notificationId]);
    assert.deepEqual(await bob.social.markAllNotificationsRead(), { marked: 1, unreadCount: 0 });
    await bob.social.deleteNotification(g.notificationId);
    await rejects(bob.social.deleteNotification(g.notificationId), 404, 'notification_not_found');
    await rejects(ada.social.markNotificationRead(n.notificationId), 404, 'notification_not_found');
    assert.deepEqual((await bob.social.notifications()).notifications.map((x) => x.notificationId), [n.notificationId]);
  });
});
