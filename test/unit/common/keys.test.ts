import crypto from 'node:crypto';
import { expect } from 'chai';
import { parseConfig } from '../../../common/config.js';
import { loadSigningKeys } from '../../../common/security/keys.js';

describe('JWT_SIGNING_KEY formats', () => {
  const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const load = (key: string) => loadSigningKeys(parseConfig({ JWT_SIGNING_KEY: key }));

  it('takes the SEC1 PEM that `openssl ecparam -name prime256v1 -genkey` prints, parameters block and all', async () => {
    const sec1 = privateKey.export({ type: 'sec1', format: 'pem' }).toString();
    const openssl = `-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n${sec1}`;
    const pkcs8 = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const [a, b, c] = await Promise.all([load(openssl), load(pkcs8), load(sec1.replace(/\n/g, '\\n'))]);
    expect(a.current.kid).to.equal(b.current.kid); // the same key, however it was written
    expect(c.current.kid).to.equal(b.current.kid); // line breaks as \n in an environment variable
  });

  it('refuses a key of another curve, naming the setting and the tool that makes one', async () => {
    const p384 = crypto.generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey;
    const err = await load(p384.export({ type: 'sec1', format: 'pem' }).toString()).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).to.match(/^invalid configuration: JWT_SIGNING_KEY: .*keys generate/);
  });
});
