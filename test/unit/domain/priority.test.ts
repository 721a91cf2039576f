import { expect } from 'chai';
import { explainPriority, PRIORITY_MAX, type PriorityFacts } from '../../../common/domain/priority.js';

const quiet: PriorityFacts = {
  highestSeverity: 'low',
  maxConfidence: 0,
  distinctGames: 0,
  distinctReporters: 0,
  earlierOffenses: 0,
  heldPoints: 0,
  flaggedByTrusted: false,
  urgent: false,
  priorityFloor: null,
};

describe('a case’s priority as a score, explained (issue 38)', () => {
  it('is 0 with nothing behind it, and 100 with every input at its cap', () => {
    expect(explainPriority(quiet)).to.deep.equal({ score: 0, inputs: [] });
    const loud = explainPriority({
      highestSeverity: 'critical',
      maxConfidence: 1,
      distinctGames: 9,
      distinctReporters: 9,
      earlierOffenses: 40,
      heldPoints: 80,
      flaggedByTrusted: true,
      urgent: false,
      priorityFloor: null,
    });
    expect(PRIORITY_MAX).to.equal(220);
    expect(loud.score).to.equal(100);
    expect(loud.inputs.map((i) => i.input)).to.deep.equal([
      'severity',
      'trusted_flagger',
      'distinct_games',
      'held_points',
      'earlier_offenses',
      'distinct_reporters',
      'confidence',
    ]);
    expect(loud.inputs.find((i) => i.input === 'distinct_games')!.why).to.equal(
      'reported from 9 games (counted up to 5)',
    );
  });

  it('gives each input its share, largest first, summing to the score', () => {
    const e = explainPriority({ ...quiet, highestSeverity: 'high', distinctReporters: 3, heldPoints: 10 });
    // 50 + 9 + 5 = 64 of 220.
    expect(e.score).to.equal(29.1);
    expect(e.inputs).to.deep.equal([
      { input: 'severity', points: 22.7, why: 'highest severity high' },
      { input: 'distinct_reporters', points: 4.1, why: '3 distinct reporters' },
      { input: 'held_points', points: 2.3, why: '10 points held until a moderator decides' },
    ]);
  });

  it('names a rule’s floor as the reason when it lifts the case, and caps the score at 100', () => {
    const lifted = explainPriority({ ...quiet, highestSeverity: 'medium', priorityFloor: 110 });
    expect(lifted.score).to.equal(50);
    expect(lifted.inputs.map((i) => [i.input, i.points])).to.deep.equal([
      ['rule', 38.6],
      ['severity', 11.4],
    ]);
    const top = explainPriority({ ...quiet, priorityFloor: 1000 });
    expect(top.score).to.equal(100);
    expect(top.inputs).to.deep.equal([
      { input: 'rule', points: 100, why: 'a rule set its priority to at least 1000' },
    ]);
    // A floor below what the figures make changes nothing.
    expect(
      explainPriority({ ...quiet, highestSeverity: 'critical', priorityFloor: 10 }).inputs,
    ).to.have.length(1);
  });
});
