/**
 * The request schemas of passkey ceremonies (kit webauthn.ts), shared by every service that takes them: the
 * credential objects are WebAuthn's own JSON (what `PublicKeyCredential.toJSON()` gives), passed as they are, so
 * their field names are the standard's whatever the service's casing.
 */
import { Type, type Static } from 'typebox';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';

/** base64url of an authenticator's bytes (bounded: a credential id is at most 1,023 bytes; CBOR blobs a few KiB). */
const B64 = (maxLength: number) => Type.String({ minLength: 1, maxLength, pattern: '^[A-Za-z0-9_-]+={0,2}$' });
const Transport = Type.String({ maxLength: 32, pattern: '^[a-z-]+$' });
const ExtensionResults = Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { maxProperties: 16, description: 'clientExtensionResults, as the browser gives them' });
const Common = {
  id: B64(1400),
  rawId: B64(1400),
  type: Type.Literal('public-key'),
  authenticatorAttachment: Type.Optional(Type.Union([Type.Literal('platform'), Type.Literal('cross-platform')])),
  clientExtensionResults: ExtensionResults,
};

export const RegistrationCredential = Type.Object(
  {
    ...Common,
    response: Type.Object(
      {
        clientDataJSON: B64(4096),
        attestationObject: B64(16384),
        authenticatorData: Type.Optional(B64(8192)),
        transports: Type.Optional(Type.Array(Transport, { maxItems: 8 })),
        publicKeyAlgorithm: Type.Optional(Type.Integer()),
        publicKey: Type.Optional(B64(4096)),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: 'The new credential: `PublicKeyCredential.toJSON()` of `navigator.credentials.create()` (WebAuthn field names)' },
);

export const AssertionCredential = Type.Object(
  {
    ...Common,
    response: Type.Object(
      {
        clientDataJSON: B64(4096),
        authenticatorData: B64(8192),
        signature: B64(2048),
        userHandle: Type.Optional(B64(128)),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: 'The assertion: `PublicKeyCredential.toJSON()` of `navigator.credentials.get()` (WebAuthn field names)' },
);

/** The options for the browser (WebAuthn's JSON form: `PublicKeyCredential.parseCreationOptionsFromJSON` / `parseRequestOptionsFromJSON`). */
export const WebauthnOptionsJSON = Type.Record(Type.String(), Type.Unknown(), {
  description: 'WebAuthn options JSON (field names are the standard’s); the challenge is good for one answer within five minutes',
});

// The library's types are wider (optional fields typed by WebAuthn); the schemas above are what is accepted.
export const asAssertion = (c: Static<typeof AssertionCredential>) => c as unknown as AuthenticationResponseJSON;
export const asRegistration = (c: Static<typeof RegistrationCredential>) => c as unknown as RegistrationResponseJSON;
