/**
 * The outbox's delivery (the notice worker is services/outbox.ts): one notice POSTed to one target over HTTP(S),
 * signed with a short-lived service token, the notice id as idempotency key, the target's certificate trusted
 * through AUTH_OUTBOX_CA_FILE. The worker decides what is due and records the outcome.
 */
import { requestJson } from '@platform/kit';

export interface NoticeDelivery {
  /** POSTs the notice to the target: undefined when acknowledged (2xx), otherwise why not (HTTP status and code). */
  post(target: string, noticeId: string, payload: object): Promise<string | undefined>;
}

export function httpNoticeDelivery(opts: { ca?: string; token: () => Promise<string> }): NoticeDelivery {
  return {
    async post(target, noticeId, payload) {
      const res = await requestJson('POST', target, {
        body: { id: noticeId, ...payload },
        headers: { authorization: `Bearer ${await opts.token()}`, 'idempotency-key': noticeId },
        ca: opts.ca,
        timeoutMs: 10_000,
      });
      if (res.status >= 200 && res.status < 300) return undefined;
      return `HTTP ${res.status}${res.body?.code ? ` ${res.body.code}` : ''}`;
    },
  };
}
