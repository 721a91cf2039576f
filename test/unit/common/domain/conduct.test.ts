import { expect } from 'chai';
import {
  conductWarning,
  conductWords,
  durationWords,
  nextStep,
  stepWords,
  type ConductCounts,
} from '../../../../common/domain/conduct.js';
import type { StrikeRung } from '../../../../common/config.js';

const LADDER: StrikeRung[] = [
  { strikes: 2, type: 'matchmaking_restriction', durationSeconds: null, matches: 10 },
  { strikes: 4, type: 'temporary_ban', durationSeconds: 7 * 86_400 },
  { strikes: 8, type: 'temporary_ban', durationSeconds: 365 * 86_400 },
];
const counts = (over: Partial<ConductCounts> = {}): ConductCounts => ({
  matches: 10,
  finished: 9,
  leftEarly: 1,
  commendations: 4,
  reports: 0,
  reportingParties: 0,
  activeStrikes: 0,
  ...over,
});

/** Issue 54, part 4: what a conduct summary says, and when it warns. */
describe('conduct summaries: the next step, the warning and the words (issue 54)', () => {
  it('names the first rung above the strikes in force, in matches or in time; none past the last', () => {
    expect(nextStep(LADDER, 0)).to.deep.equal({
      strikes: 2,
      type: 'matchmaking_restriction',
      durationSeconds: null,
      matches: 10,
    });
    expect(nextStep(LADDER, 2)).to.deep.equal({
      strikes: 4,
      type: 'temporary_ban',
      durationSeconds: 7 * 86_400,
      matches: null,
    });
    expect(nextStep(LADDER, 7)!.strikes).to.equal(8);
    expect(nextStep(LADDER, 8)).to.equal(null);
    expect(nextStep([], 0)).to.equal(null);
  });

  it('warns only when one more upheld report reaches the next step, never further off or past the ladder', () => {
    expect(conductWarning(nextStep(LADDER, 0), 0), 'two strikes away').to.equal(null);
    expect(conductWarning(nextStep(LADDER, 1), 1)).to.equal(
      'Careful: one more upheld report would bring a matchmaking restriction for the next 10 matches you finish (you have 1 strike in force; the next step is at 2).',
    );
    expect(conductWarning(nextStep(LADDER, 3), 3)).to.equal(
      'Careful: one more upheld report would bring a temporary ban of 7 days (you have 3 strikes in force; the next step is at 4).',
    );
    expect(conductWarning(nextStep(LADDER, 5), 5), 'three strikes away').to.equal(null);
    expect(conductWarning(nextStep(LADDER, 9), 9), 'past the last rung').to.equal(null);
  });

  it('says a duration in its largest whole unit, and a step in words', () => {
    expect(durationWords(86_400)).to.equal('1 day');
    expect(durationWords(365 * 86_400)).to.equal('365 days');
    expect(durationWords(7_200)).to.equal('2 hours');
    expect(durationWords(5_400)).to.equal('90 minutes');
    expect(durationWords(61)).to.equal('61 seconds');
    expect(stepWords({ strikes: 1, type: 'chat_restriction', durationSeconds: null, matches: 1 })).to.equal(
      'a chat restriction for the next 1 match you finish',
    );
  });

  it('tells the counts plainly, the reports of one party counted once only when they differ', () => {
    expect(conductWords('matches', counts())).to.equal(
      'Your last 10 matches: 9 finished, 1 left early; no reports; 4 commendations.',
    );
    expect(conductWords('matches', counts({ reports: 1, reportingParties: 1, commendations: 1 }))).to.equal(
      'Your last 10 matches: 9 finished, 1 left early; 1 report; 1 commendation.',
    );
    expect(conductWords('matches', counts({ reports: 3, reportingParties: 2 }))).to.equal(
      'Your last 10 matches: 9 finished, 1 left early; 3 reports (2 parties of players: reports from one party of a match count once); 4 commendations.',
    );
    expect(
      conductWords('restriction', counts({ matches: 1, finished: 1, leftEarly: 0, commendations: 0 })),
    ).to.equal(
      'A restriction began. Since your last summary: 1 match played, 1 finished, 0 left early; no reports; 0 commendations.',
    );
  });
});
