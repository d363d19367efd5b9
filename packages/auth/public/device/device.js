// The device approval page (docs/auth.md, "Device authorization"). The player's access token lives only in this
// script's memory: never in cookies or browser storage. Every call carries it as a Bearer header (no ambient
// credential: a cross-site page cannot make the browser approve anything). A companion app may open the page with
// `#access_token=…` (the fragment never reaches a server); otherwise the player signs in with email and password,
// and that session is signed out again once the decision is made. A module script: strict, its own scope.
const $ = (id) => document.getElementById(id);
let token = null;
let ownSession = false;
let code = '';

const status = (text) => {
  $('status').textContent = text;
};
const show = (id) => {
  for (const s of ['signin', 'code', 'confirm', 'done']) $(s).hidden = s !== id;
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

async function onSignIn(ev) {
  ev.preventDefault();
  status('Signing in…');
  try {
    const r = await call('/login', { email: $('email').value, password: $('password').value });
    token = r.access_token;
    ownSession = true;
    $('password').value = '';
    show('code');
    status('Signed in.');
    if ($('user-code').value) $('code-go').focus();
    else $('user-code').focus();
  } catch (err) {
    if (err.code === 'invalid_credentials') status('Wrong email or password.');
    else failed(err);
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
