import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';

interface DevSecrets {
  clientSecretPepper: string;
}

/**
 * Secrets a process needs but development does not configure: generated once and kept under
 * DATA_DIR (mode 0600), so client secrets issued yesterday still verify today. Production config
 * requires them to be set (see config.ts).
 */
export function resolvePepper(config: Config): string {
  if (config.clientSecretPepper) return config.clientSecretPepper;
  const file = path.join(config.dataDir, 'dev-secrets.json');
  try {
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as DevSecrets).clientSecretPepper;
  } catch {
    fs.mkdirSync(config.dataDir, { recursive: true });
    const secrets: DevSecrets = { clientSecretPepper: crypto.randomBytes(32).toString('base64url') };
    try {
      fs.writeFileSync(file, JSON.stringify(secrets), { mode: 0o600, flag: 'wx' });
      return secrets.clientSecretPepper;
    } catch {
      // Another process wrote it first: use theirs.
      return (JSON.parse(fs.readFileSync(file, 'utf8')) as DevSecrets).clientSecretPepper;
    }
  }
}
