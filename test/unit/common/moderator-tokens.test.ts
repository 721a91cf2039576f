import { expect } from 'chai';
import { exportJWK, generateKeyPair } from 'jose';
import { parseConfig } from '../../../common/config.js';
import { loadSigningKeys } from '../../../common/security/keys.js';
import { ModeratorTokens } from '../../../common/security/moderator-tokens.js';

async function keys() {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return loadSigningKeys(
    parseConfig({ NODE_ENV: 'test', JWT_SIGNING_KEY: JSON.stringify(await exportJWK(privateKey)) }),
  );
}

describe('ModeratorTokens', () => {
  it('a token verified once is still refused once it expires', async () => {
    let now = new Date('2026-11-22T10:00:00Z');
    const tokens = new ModeratorTokens(await keys(), 'https://trust.example', 900, () => now);
    const token = await tokens.sign('mod-1');
    expect(await tokens.verify(token)).to.equal('mod-1');
    now = new Date(now.getTime() + 899_000);
    expect(await tokens.verify(token)).to.equal('mod-1');
    now = new Date(now.getTime() + 1_000);
    await tokens.verify(token).then(
      () => expect.fail('an expired token was accepted'),
      (err: Error) => expect(err.message).to.equal('the session token expired'),
    );
    // And stays refused (the entry is gone, the signature check answers the same).
    await tokens.verify(token).then(
      () => expect.fail('an expired token was accepted'),
      (err: Error) => expect(err.message).to.equal('the session token expired'),
    );
  });

  it('a verified token does not make a tampered or foreign one pass', async () => {
    const tokens = new ModeratorTokens(await keys(), 'https://trust.example', 900);
    const other = new ModeratorTokens(await keys(), 'https://trust.example', 900);
    const token = await tokens.sign('mod-1');
    expect(await tokens.verify(token)).to.equal('mod-1');
    const [h, p, s] = token.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), sub: 'admin' })).toString('base64url')}.${s}`;
    for (const bad of [forged, await other.sign('mod-1'), `${token}x`])
      await tokens.verify(bad).then(
        () => expect.fail('accepted'),
        (err: Error) => expect(err.message).to.equal('the session token is invalid'),
      );
  });
});
