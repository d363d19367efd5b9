/**
 * The small pages the links in mails open (docs/auth.md, "Email flows"). The token is in the URL fragment
 * (`#token=…`), which browsers never send to a server; the page's script reads it, takes it out of the address
 * bar and posts it as JSON to the same endpoints a game calls. No inline script (the CSP allows only this
 * origin's), no third-party resource.
 */
const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${title}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}input,button{font:inherit;padding:.4rem;margin:.2rem 0;width:100%;box-sizing:border-box}#msg{margin-top:1rem}</style>
<script type="module" src="page.js"></script></head>
<body><h1>${title}</h1>${body}<p id="msg" role="status"></p></body></html>
`;

export const EMAIL_LINK_PAGES: Record<string, string> = {
  'reset-password': page(
    'Choose a new password',
    `<form id="reset" hidden><label>New password<input id="password" type="password" autocomplete="new-password" minlength="10" maxlength="256" required></label>
<label>Repeat it<input id="again" type="password" autocomplete="new-password" required></label><button type="submit">Set the password</button></form>`,
  ),
  'verify-email': page('Confirm your email address', ''),
};

export const EMAIL_LINK_SCRIPT = `// Reads #token=… and calls the auth API on this origin.
const msg = document.getElementById('msg');
const say = (text) => { msg.textContent = text; };
const token = new URLSearchParams(location.hash.slice(1)).get('token');
history.replaceState(null, '', location.pathname);
const post = async (path, body) => {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await res.json().catch(() => ({}));
  return { ok: res.ok, json };
};
const problem = (json) => ({
  invalid_email_token: 'This link is not valid.',
  email_token_used: 'This link was used already.',
  email_token_expired: 'This link has expired: ask for a new one in the game.',
  email_taken: 'Another account uses this address.',
  weak_password: json.message,
  rate_limited: 'Too many attempts: wait a minute and try again.',
})[json.code] ?? (json.message || 'Something went wrong; try again.');
if (!token) say('This link is incomplete: open the whole link from the mail.');
else if (location.pathname.endsWith('/verify-email')) {
  say('Confirming…');
  const { ok, json } = await post('/email/verify', { token });
  say(ok ? (json.changed ? 'Done: your account now uses ' + json.email + '.' : 'Done: ' + json.email + ' is confirmed.') : problem(json));
} else {
  const form = document.getElementById('reset');
  form.hidden = false;
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const password = document.getElementById('password').value;
    if (password !== document.getElementById('again').value) return say('The two passwords differ.');
    const { ok, json } = await post('/password/reset', { token, password });
    if (ok) { form.hidden = true; say('Done: sign in with the new password. Every device was signed out.'); }
    else say(problem(json));
  });
}
`;
