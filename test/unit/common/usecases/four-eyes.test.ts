import { expect } from 'chai';
import sinon from 'sinon';
import type { Queryable } from '../../../../common/data/db.js';
import { sanctionNeedsApproval } from '../../../../common/usecases/waves.js';

/** Which of a moderator's sanctions wait for a second moderator (docs/moderators.md "Four eyes"). */
describe('four eyes on a sanction', () => {
  const db = (protectedPlayer: boolean) => {
    const query = sinon.stub().resolves({ rows: [{ n: protectedPlayer ? 1 : 0 }] });
    return { db: { query } as unknown as Queryable, query };
  };
  const off = { protectedTags: ['protected'], permanentBans: false };

  it('a ban of a protected player waits; a restriction or a warning of one does not', async () => {
    for (const type of ['temporary_ban', 'permanent_ban'] as const)
      expect(await sanctionNeedsApproval(db(true).db, off, type, 'p'), type).to.equal(true);
    for (const type of ['warning', 'chat_restriction', 'matchmaking_restriction'] as const) {
      const d = db(true);
      expect(await sanctionNeedsApproval(d.db, off, type, 'p'), type).to.equal(false);
      expect(d.query.called, `${type}: no read needed`).to.equal(false);
    }
    expect(await sanctionNeedsApproval(db(false).db, off, 'permanent_ban', 'p')).to.equal(false);
    // No protected tags configured: nothing waits for being protected.
    const none = db(true);
    expect(
      await sanctionNeedsApproval(none.db, { ...off, protectedTags: [] }, 'permanent_ban', 'p'),
    ).to.equal(false);
  });

  it('with FOUR_EYES_PERMANENT_BANS every permanent ban waits, a temporary one only on a protected player', async () => {
    const on = { ...off, permanentBans: true };
    expect(await sanctionNeedsApproval(db(false).db, on, 'permanent_ban', 'p')).to.equal(true);
    expect(await sanctionNeedsApproval(db(false).db, on, 'temporary_ban', 'p')).to.equal(false);
    expect(await sanctionNeedsApproval(db(true).db, on, 'temporary_ban', 'p')).to.equal(true);
  });
});
