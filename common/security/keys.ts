import crypto from 'node:crypto';
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
  publicJwks: (JWK & { kid: string; kty: string })[];
}

/**
 * A private key from configuration: a JWK (JSON), a PKCS#8 PEM (`openssl genpkey`), or the SEC1 PEM
 * `openssl ecparam -name prime256v1 -genkey` prints (with or without its EC PARAMETERS block).
 */
async function readPrivate(text: string): Promise<{ jwk: JWK; key: CryptoKey }> {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    const jwk = JSON.parse(trimmed) as JWK;
    if (!jwk.d) throw new Error('JWT_SIGNING_KEY must be a private JWK (with "d")');
    return { jwk, key: (await importJWK(jwk, JWT_ALG)) as CryptoKey };
  }
  // An environment variable often carries the PEM's line breaks as literal \n.
  const pem = trimmed.replace(/\\n/g, '\n');
  const sec1 = /-----BEGIN EC PRIVATE KEY-----[\s\S]+?-----END EC PRIVATE KEY-----/.exec(pem)?.[0];
  const pkcs8 = sec1
    ? crypto
        .createPrivateKey({ key: sec1, format: 'pem' })
        .export({ type: 'pkcs8', format: 'pem' })
        .toString()
    : pem;
  const key = await importPKCS8(pkcs8, JWT_ALG, { extractable: true });
  return { jwk: await exportJWK(key), key };
}

/** A new ES256 private key as a JWK with its thumbprint as kid: what `admin keys generate` prints. */
export async function generateSigningJwk(): Promise<JWK & { kid: string }> {
  const { privateKey } = await generateKeyPair(JWT_ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: await calculateJwkThumbprint(jwk) };
}

async function publicOf(jwk: JWK): Promise<JWK & { kid: string; kty: string }> {
  const { kty, crv, x, y } = jwk;
  // A published key names its type (RFC 7517 4.1); importJWK refused one without it already.
  if (!kty) throw new Error('a JWK without kty');
  const pub = { kty, crv, x, y };
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
      const jwk = await generateSigningJwk();
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
      `invalid configuration: JWT_SIGNING_KEY: must be an ES256 (P-256) private key, as a JWK (JSON with "d"; 'npm run -s admin -- keys generate' makes one), a PKCS#8 PEM or an EC PRIVATE KEY PEM (${err.message})`,
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
