/**
 * A real SMTP server (the `smtp-server` package) on 127.0.0.1, port 0, inside the test process: what the auth
 * service sends through nodemailer arrives here over SMTP and is parsed with `mailparser`.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

export interface ReceivedMail {
  envelopeFrom: string;
  envelopeTo: string[];
  parsed: ParsedMail;
  text: string;
  html: string;
  subject: string;
}

export interface TestSmtpServer {
  url: string;
  received: ReceivedMail[];
  /** Resolves with the first mail (already received or arriving within `timeoutMs`) that matches. */
  waitFor(match: (m: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startSmtpServer(opts: { user?: string; pass?: string } = {}): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  const waiters: { match: (m: ReceivedMail) => boolean; resolve: (m: ReceivedMail) => void }[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: !opts.user,
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === opts.user && auth.password === opts.pass) cb(null, { user: auth.username });
      else cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      simpleParser(stream).then(
        (parsed) => {
          const m: ReceivedMail = {
            envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            envelopeTo: session.envelope.rcptTo.map((r) => r.address),
            parsed,
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
            subject: parsed.subject ?? '',
          };
          received.push(m);
          for (const w of [...waiters]) {
            if (w.match(m)) {
              waiters.splice(waiters.indexOf(w), 1);
              w.resolve(m);
            }
          }
          cb();
        },
        (err: Error) => cb(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  const cred = opts.user ? `${encodeURIComponent(opts.user)}:${encodeURIComponent(opts.pass ?? '')}@` : '';
  return {
    url: `smtp://${cred}127.0.0.1:${port}`,
    received,
    waitFor(match, timeoutMs = 10_000) {
      const found = received.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const w = { match, resolve: (m: ReceivedMail) => (clearTimeout(t), resolve(m)) };
        const t = setTimeout(() => {
          waiters.splice(waiters.indexOf(w), 1);
          reject(new Error(`no matching mail within ${timeoutMs} ms (${received.length} received)`));
        }, timeoutMs);
        waiters.push(w);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The reset or verification token of a mail (the code line of the text part). */
export function tokenOf(m: ReceivedMail): string {
  const t = /(?:reset|verification) code: ([A-Za-z0-9_-]{43})$/m.exec(m.text)?.[1];
  if (!t) throw new Error(`no token in the mail: ${m.text}`);
  return t;
}
