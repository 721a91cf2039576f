import { expect } from 'chai';
import sinon from 'sinon';
import { ClientAuthenticator } from '../../../api/middleware/client-auth.js';
import { AppError } from '../../../common/errors.js';
import { hashClientSecret } from '../../../common/security/secrets.js';

const PEPPER = 'unit-test-pepper-unit-test-pepper-0000';

function fakeDb(secretRef: { secret: string }) {
  const query = sinon.fake(async (_sql: string, params: unknown[]) => ({
    rows:
      params[0] === 'known'
        ? [
            {
              id: 'g1',
              studioId: 's1',
              title: 'T',
              clientId: 'known',
              clientSecretHash: hashClientSecret(secretRef.secret, PEPPER),
              limits: { reportsPerSecond: 5 },
            },
          ]
        : [],
  }));
  return { query } as unknown as { query: sinon.SinonSpy };
}

async function failure(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected a rejection');
}

describe('client authentication', () => {
  it('accepts the right secret and names the tenant', async () => {
    const auth = new ClientAuthenticator(fakeDb({ secret: 's3cret' }) as never, PEPPER, 30_000);
    expect(await auth.authenticate('known', 's3cret')).to.deep.equal({
      gameId: 'g1',
      studioId: 's1',
      clientId: 'known',
      title: 'T',
      limits: { reportsPerSecond: 5 },
    });
  });

  it('answers missing, unknown and wrong credentials with the same 401', async () => {
    const auth = new ClientAuthenticator(fakeDb({ secret: 's3cret' }) as never, PEPPER, 30_000);
    const errors = await Promise.all([
      failure(auth.authenticate(undefined, undefined)),
      failure(auth.authenticate('known', undefined)),
      failure(auth.authenticate('unknown', 's3cret')),
      failure(auth.authenticate('known', 'wrong')),
    ]);
    for (const err of errors) {
      expect(err).to.be.instanceOf(AppError);
      expect({ status: err.status, code: err.code, detail: err.detail }).to.deep.equal({
        status: 401,
        code: 'invalid_client',
        detail: errors[0]!.detail,
      });
    }
  });

  it('caches lookups, hits and misses alike, for the configured time only', async () => {
    const secret = { secret: 'old' };
    const db = fakeDb(secret);
    let now = 0;
    const auth = new ClientAuthenticator(db as never, PEPPER, 30_000, () => now);
    await auth.authenticate('known', 'old');
    await failure(auth.authenticate('unknown', 'x'));
    await auth.authenticate('known', 'old');
    await failure(auth.authenticate('unknown', 'x'));
    expect(db.query.callCount).to.equal(2);

    secret.secret = 'rotated';
    now = 29_999;
    await auth.authenticate('known', 'old'); // still cached, within the documented window
    now = 30_001;
    await failure(auth.authenticate('known', 'old'));
    expect(await auth.authenticate('known', 'rotated')).to.have.property('gameId', 'g1');
  });

  it('a rotated secret works at once: a mismatch re-reads the cached row (at most once a second)', async () => {
    const secret = { secret: 'old' };
    const db = fakeDb(secret);
    let now = 0;
    const auth = new ClientAuthenticator(db as never, PEPPER, 30_000, () => now);
    await auth.authenticate('known', 'old');
    secret.secret = 'rotated';
    now = 10;
    expect(await auth.authenticate('known', 'rotated')).to.have.property('gameId', 'g1');
    expect(db.query.callCount).to.equal(2);
    // The old secret now fails here (the cache holds the new row); wrong secrets do not each query.
    await failure(auth.authenticate('known', 'old'));
    await failure(auth.authenticate('known', 'wrong'));
    expect(db.query.callCount).to.equal(2);
    now = 2000;
    await failure(auth.authenticate('known', 'wrong'));
    expect(db.query.callCount).to.equal(3);
  });
});
