/**
 * Mail delivery (docs/auth.md, "Email flows"): nodemailer over SMTP (AUTH_SMTP_URL), or, without it (embedded
 * defaults), one .eml file per message in a local mailbox directory (AUTH_MAILBOX_DIR, DATA_DIR/auth/mailbox).
 *
 * Mail leaves off the request path: a request enqueues its message and answers; a small worker sends the queue
 * (one message at a time, three attempts 1 s and 5 s apart). Requests that must not tell a known address from
 * an unknown one (reset request, resend) also defer the address lookup and token insert (`defer`): they answer
 * after the same work whatever the address, however slow the database or the SMTP server, and start that work after
 * a random delay (AUTH_MAIL_DEFER_MAX_MS) so its load does not line up with the request. The queue is in memory: a message of a node that
 * stops before sending it is lost (the player asks again); tokens are never written anywhere in clear but in
 * the mail itself. Logs name the template, the message id and the file, never the address or the token.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { AuthConfig } from '../config.js';

export interface OutgoingMail {
  /** Which template made it (logged; never the address). */
  template: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface Mailer {
  /** `smtp` (sent) or `mailbox` (written to `mailbox`). */
  readonly mode: 'smtp' | 'mailbox';
  /** The mailbox directory (mode `mailbox`). */
  readonly mailbox?: string;
  /** Queues a message; never throws, never waits for delivery. */
  enqueue(mail: OutgoingMail): void;
  /**
   * Runs `job` now, without the caller waiting for it, and queues the message it makes (none: nothing). The
   * requests that must not reveal whether an address is known do all their address-dependent work here.
   */
  defer(what: string, job: () => Promise<OutgoingMail | undefined>): void;
  /** Resolves once every deferred job finished and every queued message was sent (or given up). */
  idle(): Promise<void>;
  /** Sends what is queued (bounded by `idle`), then closes the transport. */
  close(): Promise<void>;
}

const MAX_QUEUE = 10_000;
const RETRY_DELAYS_MS = [1000, 5000];

type Send = (mail: OutgoingMail) => Promise<string>;

/** SMTP through nodemailer: a pooled transport from the URL (credentials, TLS and port as the URL says). */
function smtpSender(config: AuthConfig): { send: Send; close(): void } {
  const transport = nodemailer.createTransport({ url: config.smtpUrl, pool: true, maxConnections: 2 } as never);
  return {
    async send(mail) {
      const info = await transport.sendMail({ from: config.mailFrom, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
      return String(info.messageId);
    },
    close: () => transport.close(),
  };
}

/** The local mailbox: nodemailer builds the same RFC 5322 message it would send; it is written as <time>-<template>-<random>.eml (0600). */
function mailboxSender(config: AuthConfig, dir: string): { send: Send; close(): void } {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  mkdirSync(dir, { recursive: true, mode: 0o700 }); // there from the start: `ls` on it works before the first mail
  return {
    async send(mail) {
      const info = await transport.sendMail({ from: config.mailFrom, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const file = path.join(dir, `${stamp}-${mail.template}-${randomBytes(3).toString('hex')}.eml`);
      writeFileSync(file, info.message as Buffer, { mode: 0o600 });
      return file;
    },
    close: () => transport.close(),
  };
}

export function createMailer(config: AuthConfig, log: Logger): Mailer {
  const mode = config.smtpUrl ? 'smtp' : 'mailbox';
  const sender = config.smtpUrl ? smtpSender(config) : mailboxSender(config, config.mailbox);
  const queue: OutgoingMail[] = [];
  const jobs = new Set<Promise<void>>();
  let running: Promise<void> | undefined;
  let closed = false;

  async function deliver(mail: OutgoingMail): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const id = await sender.send(mail);
        log.info({ template: mail.template, [mode === 'smtp' ? 'messageId' : 'file']: id }, mode === 'smtp' ? 'mail sent' : `mail written to ${id}`);
        return;
      } catch (err) {
        const delay = RETRY_DELAYS_MS[attempt];
        if (delay === undefined || closed) {
          log.warn({ template: mail.template, err: (err as Error).message }, 'mail not delivered; given up');
          return;
        }
        log.warn({ template: mail.template, err: (err as Error).message, retryInMs: delay }, 'mail not delivered; will retry');
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  function drain(): Promise<void> {
    running ??= (async () => {
      for (let mail = queue.shift(); mail; mail = queue.shift()) await deliver(mail);
    })().finally(() => {
      running = undefined;
    });
    return running;
  }

  return {
    mode,
    mailbox: mode === 'mailbox' ? config.mailbox : undefined,
    enqueue(mail) {
      if (queue.length >= MAX_QUEUE) {
        log.warn({ template: mail.template }, 'mail queue full; message dropped');
        return;
      }
      queue.push(mail);
      void drain();
    },
    defer(what, job) {
      // A random start (AUTH_MAIL_DEFER_MAX_MS): the lookup, insert, render and write cost a known address more than
      // an unknown one; started at once they slowed the asker's next request by ~1 ms (issue 25 item 8).
      const delay = closed ? 0 : randomInt(0, config.mailDeferMaxMs + 1);
      const p = (delay ? sleep(delay) : Promise.resolve()).then(job).then(
        (mail) => {
          if (mail) this.enqueue(mail);
        },
        (err: unknown) => log.warn({ job: what, err: (err as Error).message }, 'mail job failed'),
      );
      jobs.add(p);
      void p.finally(() => jobs.delete(p));
    },
    async idle() {
      // Jobs start once their response is sent (an onResponse hook): let a request that just answered start its own.
      await new Promise((resolve) => setImmediate(resolve));
      while (jobs.size || running) {
        await Promise.all(jobs);
        if (running) await running;
      }
    },
    async close() {
      await this.idle();
      closed = true;
      sender.close();
    },
  };
}
