/**
 * A software WebAuthn authenticator for tests without a browser (auth's passkey tests, the SDK's): a real ceremony (ES256 keys from node:crypto, the
 * attestation object and authenticator data in CBOR through the library's own encoder), never a mock of the server.
 * It keeps its credentials (discoverable: each with its user handle) and a signature counter per credential.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest();
const b64 = (b: Buffer) => b.toString('base64url');

export interface SoftCredential {
  id: Buffer;
  rpId: string;
  userHandle: string;
  privateKey: KeyObject;
  counter: number;
}

type Options = Record<string, unknown> & { challenge: string };

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];
  /** What the flags byte claims: user present and user verified unless told otherwise. */
  userVerified = true;

  constructor(readonly origin: string) {}

  /** navigator.credentials.create(): a new credential for the options, as `PublicKeyCredential.toJSON()`. */
  create(options: Options, over: { origin?: string; rpId?: string; type?: string; challenge?: string; id?: Buffer } = {}) {
    const rp = options.rp as { id: string };
    const user = options.user as { id: string };
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
    const cose = isoCBOR.encode(new Map<number, number | Uint8Array>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x, 'base64url')], [-3, Buffer.from(jwk.y, 'base64url')]]));
    const cred: SoftCredential = { id: over.id ?? randomBytes(32), rpId: over.rpId ?? rp.id, userHandle: user.id, privateKey, counter: 0 };
    const len = Buffer.alloc(2);
    len.writeUInt16BE(cred.id.length);
    const authData = Buffer.concat([sha256(cred.rpId), Buffer.from([0x41 | (this.userVerified ? 0x04 : 0)]), Buffer.alloc(4), Buffer.alloc(16), len, cred.id, Buffer.from(cose)]);
    const attestationObject = Buffer.from(isoCBOR.encode(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]) as never));
    const clientDataJSON = Buffer.from(JSON.stringify({ type: over.type ?? 'webauthn.create', challenge: over.challenge ?? options.challenge, origin: over.origin ?? this.origin, crossOrigin: false }));
    this.credentials.push(cred);
    return {
      id: b64(cred.id),
      rawId: b64(cred.id),
      type: 'public-key' as const,
      authenticatorAttachment: 'platform' as const,
      clientExtensionResults: {},
      response: { clientDataJSON: b64(clientDataJSON), attestationObject: b64(attestationObject), transports: ['internal'] },
    };
  }

  /** navigator.credentials.get(): an assertion by `cred` (default: the newest for the options' relying party). */
  get(options: Options, over: { cred?: SoftCredential; origin?: string; rpId?: string; counter?: number; challenge?: string; userHandle?: string | null } = {}) {
    const rpId = options.rpId as string;
    const cred = over.cred ?? [...this.credentials].reverse().find((c) => c.rpId === rpId);
    if (!cred) throw new Error('no credential for this relying party');
    cred.counter = over.counter ?? cred.counter + 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(cred.counter);
    const authData = Buffer.concat([sha256(over.rpId ?? rpId), Buffer.from([0x01 | (this.userVerified ? 0x04 : 0)]), counter]);
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: over.challenge ?? options.challenge, origin: over.origin ?? this.origin, crossOrigin: false }));
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), cred.privateKey);
    const userHandle = over.userHandle === undefined ? cred.userHandle : over.userHandle;
    return {
      id: b64(cred.id),
      rawId: b64(cred.id),
      type: 'public-key' as const,
      clientExtensionResults: {},
      response: { clientDataJSON: b64(clientDataJSON), authenticatorData: b64(authData), signature: b64(signature), ...(userHandle === null ? {} : { userHandle }) },
    };
  }
}
