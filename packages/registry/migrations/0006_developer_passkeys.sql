-- Developer passkeys (docs/registry.md, "Passkeys"; decision 0028): WebAuthn credentials of developers, a sign-in
-- method of their own and a second factor after the password. credential_id: the authenticator's id (base64url,
-- unique across developers: a discoverable assertion names only it); public_key: the COSE key; counter: the
-- signature counter (0 for authenticators that keep none; one that goes backwards is refused as a cloned
-- authenticator). Adding or removing one moves developers.token_generation (migration 0005).
CREATE TABLE developer_passkeys (
  id uuid PRIMARY KEY,
  developer_id uuid NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
  credential_id text NOT NULL,
  public_key bytea NOT NULL,
  counter bigint NOT NULL DEFAULT 0,
  transports text[] NOT NULL DEFAULT '{}',
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  CONSTRAINT developer_passkeys_credential_id UNIQUE (credential_id)
);
CREATE INDEX developer_passkeys_developer ON developer_passkeys (developer_id, created_at);
