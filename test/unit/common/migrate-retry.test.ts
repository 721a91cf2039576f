import { expect } from 'chai';
import { isLockConflict, retryOnLockConflict } from '../../../common/data/migrate.js';

const pgError = (code: string) => Object.assign(new Error(`pg ${code}`), { code });

describe('migrate: a lock conflict with the running service runs the migration again', () => {
  const noSleep = { sleep: async () => undefined };

  it('knows a lock wait that ran out (55P03) and a deadlock (40P01), and nothing else', () => {
    expect(isLockConflict(pgError('55P03'))).to.equal(true);
    expect(isLockConflict(pgError('40P01'))).to.equal(true);
    expect(isLockConflict(pgError('42P01'))).to.equal(false);
    expect(isLockConflict(new Error('no code'))).to.equal(false);
    expect(isLockConflict(null)).to.equal(false);
  });

  it('runs again after conflicts until it succeeds, saying each retry', async () => {
    const said: string[] = [];
    let calls = 0;
    const result = await retryOnLockConflict(
      async () => {
        calls++;
        if (calls < 3) throw pgError(calls === 1 ? '40P01' : '55P03');
        return 'migrated';
      },
      { attempts: 5, baseMs: 10, log: (m) => said.push(m), ...noSleep },
    );
    expect(result).to.equal('migrated');
    expect(calls).to.equal(3);
    expect(said).to.have.length(2);
    expect(said[0]).to.match(/again in \d+ ms \(attempt 2 of 5\)/);
  });

  it('gives up after its attempts with the last conflict, and at once on any other error', async () => {
    let calls = 0;
    const always = () => {
      calls++;
      return Promise.reject(pgError('55P03'));
    };
    await retryOnLockConflict(always, { attempts: 4, baseMs: 1, ...noSleep }).then(
      () => expect.fail('resolved'),
      (err: { code: string }) => expect(err.code).to.equal('55P03'),
    );
    expect(calls).to.equal(4);
    calls = 0;
    await retryOnLockConflict(
      () => {
        calls++;
        return Promise.reject(pgError('42P07'));
      },
      { attempts: 4, baseMs: 1, ...noSleep },
    ).then(
      () => expect.fail('resolved'),
      (err: { code: string }) => expect(err.code).to.equal('42P07'),
    );
    expect(calls).to.equal(1);
  });
});
