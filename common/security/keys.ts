import fs from 'node:fs';
import path from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, importPKCS8, type JWK } from 'jose';
import { ConfigError, type Config } from '../config.js';

export const JWT_ALG = 'ES256';

type CryptoKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

export interface SigningKeys {
  /** The key new tokens are signed with. */
  current: { kid: string; privateKey: CryptoKey };
  /** Public JWKs of the current and previous keys: what verification accepts and the JWKS shows. */
  publicJwks: (JWK & { kid: string })[];
}

/** A private key from configuration: a JWK (JSON) or a PKCS#8 PEM. */
async function readPrivate(text: string): Promise<{ jwk: JWK; key: CryptoKey }> {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    const jwk = JSON.parse(trimmed) as JWK;
    if (!jwk.d) throw new Error('JWT_SIGNING_KEY must be a private JWK (with "d")');
    return { jwk, key: (await importJWK(jwk, JWT_ALG)) as CryptoKey };
  }
  const key = await importPKCS8(trimmed.replace(/\\n/g, '\n'), JWT_ALG, { extractable: true });
  return { jwk: await exportJWK(key), key };
}

async function publicOf(jwk: JWK): Promise<JWK & { kid: string }> {
  const { kty, crv, x, y } = jwk;
  const pub: JWK = { kty, crv, x, y };
  return { ...pub, kid: jwk.kid ?? (await calculateJwkThumbprint(pub)), alg: JWT_ALG, use: 'sig' };
}

/**
 * The ES256 signing key from JWT_SIGNING_KEY (and JWT_PREVIOUS_KEYS: a JSON array of JWKs still
 * accepted after a rotation, until the tokens they signed expire). In development without
 * configuration a key is generated once and kept under DATA_DIR.
 */
export async function loadSigningKeys(config: Config): Promise<SigningKeys> {
  let text = config.jwtSigningKey;
  if (!text) {
    const file = path.join(config.dataDir, 'jwt-signing-key.json');
    if (!fs.existsSync(file)) {
      const { privateKey } = await generateKeyPair(JWT_ALG, { extractable: true });
      const jwk = await exportJWK(privateKey);
      jwk.kid = await calculateJwkThumbprint(jwk);
      fs.mkdirSync(config.dataDir, { recursive: true });
      try {
        fs.writeFileSync(file, JSON.stringify(jwk), { mode: 0o600, flag: 'wx' });
      } catch {
        // another process generated it first; use theirs
      }
    }
    text = fs.readFileSync(file, 'utf8');
  }
  const { jwk, key } = await readPrivate(text).catch((err: Error) => {
    throw new ConfigError(
      `invalid configuration: JWT_SIGNING_KEY: must be an ES256 private key, as a JWK (JSON with "d") or a PKCS#8 PEM (${err.message})`,
    );
  });
  const current = await publicOf(jwk);
  const previous = config.jwtPreviousKeys ? ((JSON.parse(config.jwtPreviousKeys) as JWK[]) ?? []) : [];
  const previousPublic = await Promise.all(
    previous.map(async (k) => {
      try {
        await importJWK({ kty: k.kty, crv: k.crv, x: k.x, y: k.y }, JWT_ALG);
        return await publicOf(k);
      } catch (err) {
        throw new ConfigError(
          `invalid configuration: JWT_PREVIOUS_KEYS: every key must be an ES256 JWK (${(err as Error).message})`,
        );
      }
    }),
  );
  return {
    current: { kid: current.kid, privateKey: key },
    publicJwks: [current, ...previousPublic.filter((k) => k.kid !== current.kid)],
  };
}
