import { expect } from 'chai';
import {
  nextHonor,
  recoveryCredit,
  weighCommendations,
  type CommendationToWeigh,
} from '../../../../common/domain/honor.js';

const at = (h: number) => new Date(Date.UTC(2026, 11, 1) + h * 3600_000);
const c = (
  over: Partial<CommendationToWeigh> & Pick<CommendationToWeigh, 'commender' | 'recipient'>,
): CommendationToWeigh => ({
  matchId: 'm1',
  endedAt: at(0),
  ownParty: false,
  linked: false,
  repeatOnRecord: false,
  returnedOnRecord: false,
  ...over,
});

describe('commendations and honor, the rules (issue 54; docs/studios.md "Commendations and honor")', () => {
  it('weighs a commendation by party, repeat, return and link, walking the batch by end whatever order it came in', () => {
    const items = [
      // given in the order a studio might send: the later match first
      c({ matchId: 'm2', endedAt: at(2), commender: 'a', recipient: 'b' }),
      c({ matchId: 'm2', endedAt: at(2), commender: 'c', recipient: 'a' }),
      c({ commender: 'a', recipient: 'b' }),
      c({ commender: 'd', recipient: 'e', ownParty: true }),
      c({ commender: 'f', recipient: 'g', linked: true, ownParty: true }),
      c({ commender: 'h', recipient: 'i' }),
      c({ commender: 'i', recipient: 'h' }),
      c({ commender: 'j', recipient: 'k', repeatOnRecord: true }),
      c({ commender: 'k', recipient: 'l', returnedOnRecord: true }),
      // 8 days later the pair counts again
      c({ matchId: 'm9', endedAt: at(8 * 24), commender: 'a', recipient: 'b' }),
    ];
    expect(weighCommendations(items)).to.deep.equal([
      'repeat',
      'counted',
      'counted',
      'own_party',
      'linked',
      'returned',
      'returned',
      'repeat',
      'returned',
      'counted',
    ]);
  });

  it('a return counts nothing only when the first one counted; an ignored one does not block the other way', () => {
    const why = weighCommendations([
      c({ commender: 'a', recipient: 'b', linked: true }),
      c({ matchId: 'm2', endedAt: at(1), commender: 'b', recipient: 'a', linked: false }),
    ]);
    expect(why).to.deep.equal(['linked', 'counted']);
  });

  it('honor moves in quarters, 100 a level, between 0 and 5', () => {
    expect(nextHonor(2, 0, 101)).to.deep.equal({ level: 3, progress: 1 });
    expect(nextHonor(3, 1, -8)).to.deep.equal({ level: 2, progress: 93 });
    expect(nextHonor(0, 3, -8)).to.deep.equal({ level: 0, progress: 0 });
    expect(nextHonor(5, 0, 40)).to.deep.equal({ level: 5, progress: 0 });
    expect(nextHonor(4, 99, 1)).to.deep.equal({ level: 5, progress: 0 });
  });

  it('the recovery credit is an hour a quarter, at most half a period since the clock started; none without recovery', () => {
    const week = 7 * 86_400;
    expect(recoveryCredit(3, week, 0)).to.equal(3 * 3600);
    expect(recoveryCredit(1000, week, 0)).to.equal(week / 2);
    expect(recoveryCredit(10, week, week / 2 - 3600)).to.equal(3600);
    expect(recoveryCredit(10, week, week / 2)).to.equal(0);
    expect(recoveryCredit(10, 0, 0)).to.equal(0);
    expect(recoveryCredit(0, week, 0)).to.equal(0);
  });
});
