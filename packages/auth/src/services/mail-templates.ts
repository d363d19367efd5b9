/**
 * The mails of the email flows, one template each, in the game's or platform's name (AUTH_MAIL_PRODUCT_NAME).
 * Every mail with a token carries it twice: a link to auth's small page (`/email-link/…#token=…`: in the
 * fragment, so it never reaches a server log) and the token itself on a line of its own, for a game that shows
 * an input for it, as `reset code: …` / `verification code: …` (the walkthrough picks that line). nodemailer folds
 * long lines of the text part as quoted-printable: decode it before reading (`python3 -m quopri -d < file.eml`).
 */
import type { OutgoingMail } from '../adapters/mailer.js';

export interface MailContext {
  product: string;
  /** Base of links (AUTH_PUBLIC_URL or AUTH_ISSUER), no trailing slash. */
  linkBase: string;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * Who a mail goes to. The display name (and any other text) is chosen by whoever made or holds the account, not
 * by the mailbox: a mail to an address not proven yet carries none of it (a stranger could sign up with anyone's
 * address and a name like "Security: verify at https://…" — phishing from the platform's own sender). Only a
 * verified address is greeted by name; names are only ever escaped text.
 */
export interface Recipient {
  address: string;
  verified: boolean;
  name?: string;
}

const greeting = (r: Recipient) => (r.verified && r.name ? `Hello ${r.name},` : 'Hello,');

function html(ctx: MailContext, paragraphs: string[], action?: { label: string; href: string; token: string }): string {
  const body = paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n');
  const button = action
    ? `<p><a href="${escapeHtml(action.href)}">${escapeHtml(action.label)}</a></p>\n<p>Or enter this code in the game:<br><code>${escapeHtml(action.token)}</code></p>`
    : '';
  return `<!doctype html>\n<html><body>\n<h2>${escapeHtml(ctx.product)}</h2>\n${body}\n${button}\n</body></html>\n`;
}

function mail(template: string, to: string, subject: string, textLines: string[], htmlBody: string): OutgoingMail {
  return { template, to, subject, text: textLines.join('\n') + '\n', html: htmlBody };
}

export function passwordResetMail(ctx: MailContext, to: Recipient, token: string, minutes: number): OutgoingMail {
  const href = `${ctx.linkBase}/email-link/reset-password#token=${token}`;
  const intro = `Someone (we hope you) asked to reset the password of your ${ctx.product} account.`;
  const outro = `The link and the code work once, for ${minutes} minutes. If you did not ask, ignore this mail: your password stays as it is.`;
  return mail(
    'password_reset',
    to.address,
    `${ctx.product}: reset your password`,
    [greeting(to), '', intro, '', 'Choose a new password here:', href, '', 'Or enter this reset code in the game:', '', `reset code: ${token}`, '', outro],
    html(ctx, [greeting(to), intro], { label: 'Choose a new password', href, token }) + `<p>${escapeHtml(outro)}</p>\n`,
  );
}

/** To an address not verified yet (sign-up, link, resend, the new address of a change): no name, no requester text. */
export function verifyEmailMail(ctx: MailContext, to: string, token: string, hours: number, change: boolean): OutgoingMail {
  const hello = greeting({ address: to, verified: false });
  const href = `${ctx.linkBase}/email-link/verify-email#token=${token}`;
  const intro = change
    ? `Confirm ${to} as the new email address of your ${ctx.product} account.`
    : `Confirm ${to} as the email address of your ${ctx.product} account.`;
  const outro = `The link and the code work once, for ${hours} hours. If this was not you, ignore this mail.`;
  return mail(
    change ? 'email_change' : 'verify_email',
    to,
    `${ctx.product}: confirm your email address`,
    [hello, '', intro, '', 'Confirm here:', href, '', 'Or enter this code in the game:', '', `verification code: ${token}`, '', outro],
    html(ctx, [hello, intro], { label: 'Confirm my email address', href, token }) + `<p>${escapeHtml(outro)}</p>\n`,
  );
}

/**
 * To the old address when a change to `next` is asked: the owner learns of it even if someone else asked. The new
 * address is named only to a verified old address (to an unproven one it is text the requester chose).
 */
export function emailChangeNoticeMail(ctx: MailContext, to: Recipient, next: string): OutgoingMail {
  const lines = [
    to.verified ? `A change of the email address of your ${ctx.product} account to ${next} was asked.` : `A change of the email address of your ${ctx.product} account was asked.`,
    'It takes effect when the new address is confirmed.',
    'If this was not you, change your password now.',
  ];
  return mail('email_change_notice', to.address, `${ctx.product}: your email address is changing`, [greeting(to), '', ...lines], html(ctx, [greeting(to), ...lines]));
}

/** After an admin's reset of the sign-in factors: the owner learns it, so a reset they did not ask for is seen. */
export function factorsResetMail(ctx: MailContext, to: string): OutgoingMail {
  const hello = greeting({ address: to, verified: false });
  const lines = [
    `Support removed the authenticator app and the passkeys of your ${ctx.product} account, as asked, and every device was signed out.`,
    'Sign in with your password, then add a second factor again.',
    'If you did not ask for this, reset your password now and contact support.',
  ];
  return mail('factors_reset', to, `${ctx.product}: your second factors were reset`, [hello, '', ...lines], html(ctx, [hello, ...lines]));
}

/** After a reset: the owner learns that the password changed and every session ended. */
export function passwordChangedMail(ctx: MailContext, to: string): OutgoingMail {
  const hello = greeting({ address: to, verified: false });
  const lines = [
    `The password of your ${ctx.product} account was reset, and every device was signed out.`,
    'If this was not you, reset your password again and contact support.',
  ];
  return mail('password_changed', to, `${ctx.product}: your password was reset`, [hello, '', ...lines], html(ctx, [hello, ...lines]));
}

/**
 * To an address that already has an account, when someone asked to sign up with it or to make it another account's
 * address: the answer to the asker was the same as for a free address (no enumeration), the owner learns it here.
 * The address may not be verified: no requester-chosen text.
 */
export function addressInUseMail(ctx: MailContext, to: string, asked: 'sign_up' | 'email_change'): OutgoingMail {
  const hello = greeting({ address: to, verified: false });
  const lines = [
    asked === 'sign_up'
      ? `Someone asked to sign up for ${ctx.product} with this address, which already has a ${ctx.product} account. No new account was made.`
      : `Someone asked to make this address the email address of another ${ctx.product} account. This address already has an account, so nothing changed.`,
    'If it was you: sign in with this address, or choose "Forgot password" in the game to reset the password.',
    'If it was not you, ignore this mail.',
  ];
  return mail('address_in_use', to, `${ctx.product}: this address already has an account`, [hello, '', ...lines], html(ctx, [hello, ...lines]));
}
