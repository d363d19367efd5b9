// The device approval page (docs/auth.md, "Device authorization"). The player's access token lives only in this
// script's memory: never in cookies or browser storage. Every call carries it as a Bearer header (no ambient
// credential: a cross-site page cannot make the browser approve anything). A companion app may open the page with
// `#access_token=…` (the fragment never reaches a server); otherwise the player signs in with email and password,
// or with a passkey (WebAuthn: the browser offers the player's passkeys for this site; docs/auth.md, "Passkeys"),
// and that session is signed out again once the decision is made. An account with a second factor is asked for it
// after the password: the authenticator app's code or a recovery code, or its passkey. A module script: strict, its own scope.
const $ = (id) => document.getElementById(id);
let token = null;
let ownSession = false;
let code = '';
/** The second step of a password sign-in waiting here (the 401 mfa_required's token, five minutes). */
let mfaToken = null;

const status = (text) => {
  $('status').textContent = text;
};
const show = (id) => {
  for (const s of ['signin', 'mfa', 'code', 'confirm', 'done']) $(s).hidden = s !== id;
};

async function call(path, body) {
  const headers = { 'content-type': 'application/json', accept: 'application/json' };
  if (token) headers.authorization = 'Bearer ' + token;
  const res = await fetch(path, { method: 'POST', headers, body: JSON.stringify(body), credentials: 'omit', cache: 'no-store' });
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch (e) {
    data = null;
  }
  if (res.status >= 400) {
    const err = new Error((data && data.message) || 'Request failed (' + res.status + ')');
    err.code = data && data.code;
    err.details = data;
    throw err;
  }
  return data;
}

function failed(err) {
  if (err.code === 'invalid_token' || err.code === 'unauthenticated') {
    token = null;
    show('signin');
    status('Please sign in again.');
    return;
  }
  if (err.code === 'user_code_not_found') {
    show('code');
    status('That code is not valid (mistyped, expired or already used). Check the code on your device.');
    return;
  }
  if (err.code === 'rate_limited') {
    status('Too many attempts. Wait a minute and try again.');
    return;
  }
  status(err.message);
}

async function signOutPageSession() {
  if (!ownSession || !token) return;
  try {
    await call('/logout', {});
  } catch (e) {
    /* the session ends with its token anyway */
  }
  token = null;
  ownSession = false;
}

// WebAuthn's JSON form (base64url byte strings) to and from what navigator.credentials takes and gives.
const bytes = (s) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(s.length / 4) * 4, '=')), (c) => c.charCodeAt(0));
const b64 = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/** One assertion for the service's options (`navigator.credentials.get`), as WebAuthn JSON. */
async function assertion(options) {
  const allow = options.allowCredentials && options.allowCredentials.map((d) => ({ ...d, id: bytes(d.id) }));
  const cred = await navigator.credentials.get({ publicKey: { ...options, challenge: bytes(options.challenge), allowCredentials: allow } });
  const r = cred.response;
  const response = { clientDataJSON: b64(r.clientDataJSON), authenticatorData: b64(r.authenticatorData), signature: b64(r.signature) };
  if (r.userHandle) response.userHandle = b64(r.userHandle);
  return { id: cred.id, rawId: b64(cred.rawId), type: 'public-key', clientExtensionResults: cred.getClientExtensionResults(), response };
}

function signedIn(r) {
  token = r.access_token;
  ownSession = true;
  mfaToken = null;
  $('password').value = '';
  $('mfa-code').value = '';
  show('code');
  status('Signed in.');
  if ($('user-code').value) $('code-go').focus();
  else $('user-code').focus();
}

function passkeyFailed(err) {
  if (err.name === 'NotAllowedError' || err.name === 'AbortError') status('The passkey was not used (cancelled or timed out).');
  else if (err.code === 'invalid_passkey') status('That passkey is not valid here. Try again, or sign in with your email.');
  else failed(err);
}

async function onSignIn(ev) {
  ev.preventDefault();
  status('Signing in…');
  try {
    signedIn(await call('/login', { email: $('email').value, password: $('password').value }));
  } catch (err) {
    if (err.code === 'invalid_credentials') status('Wrong email or password.');
    else if (err.code === 'mfa_required' && err.details) secondStep(err.details.mfa_token, err.details.factors || ['totp']);
    else failed(err);
  }
}

/** The account's second step: its authenticator's code (or a recovery code), or its passkey. */
function secondStep(token, factors) {
  mfaToken = token;
  const passkey = factors.includes('passkey') && Boolean(window.PublicKeyCredential);
  if (!factors.includes('totp') && passkey) {
    // A passkey only: the browser's prompt at once.
    void mfaPasskey();
    return;
  }
  if (!factors.includes('totp')) {
    status('This account confirms its sign-ins with a passkey, which this browser cannot use.');
    return;
  }
  $('mfa-passkey').hidden = !passkey;
  show('mfa');
  $('mfa-code').focus();
  status('Enter the code your authenticator app shows (or one of your recovery codes).');
}

async function mfaPasskey() {
  status('Confirm with your passkey…');
  try {
    const { public_key } = await call('/login/mfa/passkey/options', { mfa_token: mfaToken });
    signedIn(await call('/login/mfa', { mfa_token: mfaToken, passkey: await assertion(public_key) }));
  } catch (e) {
    passkeyFailed(e);
  }
}

async function onMfaCode(ev) {
  ev.preventDefault();
  const proof = $('mfa-code').value.trim();
  status('Checking the code…');
  try {
    // Six digits: the app's code; anything else: a recovery code (each works once).
    signedIn(await call('/login/mfa', /^\d{6}$/.test(proof) ? { mfa_token: mfaToken, code: proof } : { mfa_token: mfaToken, recovery_code: proof }));
  } catch (err) {
    if (err.code === 'invalid_mfa_code') status('That code is wrong or used already (or the sign-in expired: start over).');
    else if (err.code === 'account_locked') status('Too many wrong codes: the second step is locked for a while. Try again later.');
    else if (err.code === 'validation_failed') status('Enter the six-digit code or a recovery code.');
    else failed(err);
  }
}

function startOver() {
  mfaToken = null;
  $('mfa-code').value = '';
  show('signin');
  status('Sign in to approve a device.');
}

async function onPasskey() {
  status('Use your passkey…');
  try {
    const { public_key } = await call('/login/passkey/options', {});
    signedIn(await call('/login/passkey', { credential: await assertion(public_key) }));
  } catch (err) {
    passkeyFailed(err);
  }
}

async function onCode(ev) {
  ev.preventDefault();
  status('Looking the code up…');
  try {
    const r = await call('/device/lookup', { user_code: $('user-code').value });
    code = $('user-code').value;
    $('d-code').textContent = r.user_code;
    $('d-client').textContent = r.client_id + (r.client_verified ? '' : ' (unverified name)');
    $('d-client').className = r.client_verified ? '' : 'unverified';
    $('d-device').textContent = r.device_name || 'not named';
    $('d-platform').textContent = r.platform || 'not given';
    $('d-ip').textContent = r.ip_prefix || 'unknown';
    $('d-at').textContent = new Date(r.requested_at).toLocaleString();
    show('confirm');
    status('Check that this is your device.');
  } catch (err) {
    failed(err);
  }
}

async function decide(approve) {
  status(approve ? 'Approving…' : 'Denying…');
  try {
    await call('/device/decision', { user_code: code, approve });
    show('done');
    $('result').textContent = approve
      ? 'Approved. Return to your device: it signs in by itself.'
      : 'Denied. The device was not signed in.';
    // The page's own session ends before it says done (the test, and a player closing the tab, rely on it).
    await signOutPageSession();
    status('Done.');
  } catch (err) {
    failed(err);
  }
}

function start() {
  $('signin').addEventListener('submit', onSignIn);
  $('mfa').addEventListener('submit', onMfaCode);
  $('mfa-passkey').addEventListener('click', mfaPasskey);
  $('mfa-back').addEventListener('click', startOver);
  // Offered where the browser has WebAuthn.
  if (window.PublicKeyCredential) {
    $('passkey-go').hidden = false;
    $('passkey-go').addEventListener('click', onPasskey);
  }
  $('code').addEventListener('submit', onCode);
  $('approve').addEventListener('click', () => decide(true));
  $('deny').addEventListener('click', () => decide(false));
  const params = new URLSearchParams(location.search);
  if (params.get('user_code')) $('user-code').value = params.get('user_code');
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get('access_token')) {
    token = fragment.get('access_token');
    // Out of the address bar and the history.
    history.replaceState(null, '', location.pathname + location.search);
  }
  show(token ? 'code' : 'signin');
  status(token ? 'Enter the code shown on your device.' : 'Sign in to approve a device.');
}

start();
