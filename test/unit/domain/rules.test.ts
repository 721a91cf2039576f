import { expect } from 'chai';
import {
  actionsSchema,
  conditionsSchema,
  effectiveActions,
  needsApproval,
  ruleMatches,
  type CaseFacts,
} from '../../../common/domain/rules.js';

const facts: CaseFacts & { priority: number } = {
  caseId: 'c1',
  playerId: 'p1',
  type: 'toxicity',
  severity: 'medium',
  sources: ['game'],
  reports: 3,
  distinctReporters: 2,
  distinctGames: 1,
  trustScore: 70,
  playerTags: ['vip'],
  queue: 'default',
  activeSanctionTypes: [],
  // Three reports: now, 30 s and 10 minutes before.
  reportTimes: [1_000_000, 970_000, 400_000],
  openHours: 30,
  waves: ['w1'],
  confidence: 0.9,
  activeStrikes: 2,
  pointsHeldUntil: null,
  evasionSuspected: false,
  // The latest five matches, newest first: two left early.
  recentLeftEarly: [false, true, false, true, false],
  restrictionMatchesLeft: 2,
  distinctStudios: 2,
  bestCredibility: 0.75,
  readAt: 1_000_000,
  escalated: false,
  priority: 40,
};

describe('a rule as data (issue 38)', () => {
  it('matches when every condition holds, and not when any one fails', () => {
    const all = {
      types: ['toxicity' as const],
      minSeverity: 'medium' as const,
      sources: ['game' as const],
      minReports: 3,
      minDistinctReporters: 2,
      minDistinctGames: 1,
      maxTrustScore: 70,
      playerTags: ['vip'],
      queues: ['default'],
      noActiveSanction: true,
      burst: { reports: 2, withinSeconds: 30 },
      minOpenHours: 30,
      minConfidence: 0.9,
      minActiveStrikes: 2,
      minDistinctStudios: 2,
      minReporterCredibility: 0.75,
      leftEarly: { matches: 4, atLeast: 2 },
      maxRestrictionMatchesLeft: 2,
    };
    expect(ruleMatches(all, facts)).to.equal(true);
    const failing: [string, Partial<CaseFacts>][] = [
      ['types', { type: 'cheating' }],
      ['minSeverity', { severity: 'low' }],
      ['sources', { sources: ['notice'] }],
      ['minReports', { reports: 2 }],
      ['minDistinctReporters', { distinctReporters: 1 }],
      ['minDistinctGames', { distinctGames: 0 }],
      ['maxTrustScore', { trustScore: 71 }],
      ['playerTags', { playerTags: [] }],
      ['queues', { queue: 'senior' }],
      ['noActiveSanction', { activeSanctionTypes: ['warning'] }],
      ['burst', { reportTimes: [1_000_000, 969_999, 400_000] }],
      ['burst', { reportTimes: [1_000_000] }],
      ['minOpenHours', { openHours: 29.9 }],
      ['minConfidence', { confidence: 0.89 }],
      ['minActiveStrikes', { activeStrikes: 1 }],
      ['minDistinctStudios', { distinctStudios: 1 }],
      ['minReporterCredibility', { bestCredibility: 0.74 }],
      ['minReporterCredibility', { bestCredibility: null }],
      // Only the last 4 matches count: the second left early falls out once a newer one comes.
      ['leftEarly', { recentLeftEarly: [false, false, true, false, true] }],
      ['leftEarly', { recentLeftEarly: [true] }],
      ['leftEarly', { recentLeftEarly: [] }],
      ['maxRestrictionMatchesLeft', { restrictionMatchesLeft: 3 }],
      ['maxRestrictionMatchesLeft', { restrictionMatchesLeft: null }],
    ];
    for (const [name, change] of failing)
      expect(ruleMatches(all, { ...facts, ...change }), name).to.equal(false);
  });

  it('takes leftEarly at most 100 matches back; an atLeast above its matches never holds', () => {
    expect(conditionsSchema.validate({ leftEarly: { matches: 10, atLeast: 3 } }).error).to.equal(undefined);
    expect(conditionsSchema.validate({ leftEarly: { matches: 101, atLeast: 1 } }).error).to.not.equal(
      undefined,
    );
    expect(conditionsSchema.validate({ maxRestrictionMatchesLeft: 0 }).error).to.equal(undefined);
    expect(conditionsSchema.validate({ maxRestrictionMatchesLeft: -1 }).error).to.not.equal(undefined);
    expect(
      ruleMatches(
        { leftEarly: { matches: 2, atLeast: 3 } },
        { ...facts, recentLeftEarly: [true, true, true] },
      ),
    ).to.equal(false);
  });

  it('acts only where it would change something', () => {
    const actions = { priority: 30, queue: 'default', escalate: true as const, tag: 'vip' };
    expect(effectiveActions(actions, facts)).to.deep.equal({ escalate: true });
    expect(effectiveActions({ priority: 90, queue: 'senior', tag: 'raid' }, facts)).to.deep.equal({
      priority: 90,
      queue: 'senior',
      tag: 'raid',
    });
    expect(effectiveActions({ escalate: true }, { ...facts, escalated: true })).to.deep.equal({});
    const ban = {
      templateId: 't1',
      type: 'temporary_ban' as const,
      durationSeconds: 86_400,
      reason: 'Aimbot',
    };
    expect(effectiveActions({ sanction: ban }, facts)).to.deep.equal({ sanction: ban });
    // A player already under a sanction of that type in force gets no second one; of another type, does.
    const banned = { ...facts, activeSanctionTypes: ['temporary_ban'] };
    expect(effectiveActions({ sanction: ban }, banned)).to.deep.equal({});
    const warned = { ...facts, activeSanctionTypes: ['warning'] };
    expect(effectiveActions({ sanction: ban }, warned)).to.deep.equal({ sanction: ban });
  });

  it('holds points only to make a hold longer, and releases only a hold in force', () => {
    const hold = { holdPoints: { hours: 1 } };
    expect(effectiveActions(hold, facts)).to.deep.equal(hold);
    expect(effectiveActions(hold, { ...facts, pointsHeldUntil: 1_000_000 + 3_600_000 })).to.deep.equal({});
    expect(effectiveActions(hold, { ...facts, pointsHeldUntil: 1_000_000 + 60_000 })).to.deep.equal(hold);
    expect(effectiveActions({ releaseHold: true }, facts)).to.deep.equal({});
    expect(effectiveActions({ releaseHold: true }, { ...facts, pointsHeldUntil: 999_999 })).to.deep.equal({});
    expect(effectiveActions({ releaseHold: true }, { ...facts, pointsHeldUntil: 1_000_001 })).to.deep.equal({
      releaseHold: true,
    });
  });

  it('adds a player to a wave only when not a member of it already', () => {
    expect(effectiveActions({ wave: { waveId: 'w2' } }, facts)).to.deep.equal({ wave: { waveId: 'w2' } });
    expect(effectiveActions({ wave: { waveId: 'w1' } }, facts)).to.deep.equal({});
  });

  it('waits for a second admin only when live and placing a sanction or adding to a wave', () => {
    expect(needsApproval('live', { wave: { waveId: 'w1' } })).to.equal(true);
    expect(needsApproval('background', { wave: { waveId: 'w1' } })).to.equal(false);
    const ban = { templateId: 't1', type: 'permanent_ban' as const, durationSeconds: null, reason: 'Ring' };
    expect(needsApproval('live', { sanction: ban })).to.equal(true);
    expect(needsApproval('background', { sanction: ban })).to.equal(false);
    expect(needsApproval('draft', { sanction: ban })).to.equal(false);
    expect(needsApproval('live', { tag: 'raid', escalate: true })).to.equal(false);
  });

  it('a burst counts the reports within its window up to the case’s latest one', () => {
    const burst = (reports: number, withinSeconds: number) =>
      ruleMatches({ burst: { reports, withinSeconds } }, facts);
    expect(burst(2, 30)).to.equal(true);
    expect(burst(3, 30)).to.equal(false);
    expect(burst(3, 600)).to.equal(true);
    expect(burst(4, 600)).to.equal(false);
    expect(conditionsSchema.validate({ burst: { reports: 1, withinSeconds: 60 } }).error).to.not.equal(
      undefined,
    );
    expect(conditionsSchema.validate({ burst: { reports: 201, withinSeconds: 60 } }).error).to.not.equal(
      undefined,
    );
    expect(conditionsSchema.validate({ burst: { reports: 5, withinSeconds: 300 } }).error).to.equal(
      undefined,
    );
  });

  it('needs at least one condition and one action, each of its own form', () => {
    expect(conditionsSchema.validate({}).error).to.not.equal(undefined);
    expect(actionsSchema.validate({}).error).to.not.equal(undefined);
    expect(conditionsSchema.validate({ maxTrustScore: 101 }).error).to.not.equal(undefined);
    expect(actionsSchema.validate({ tag: 'Not A Tag' }).error).to.not.equal(undefined);
    expect(actionsSchema.validate({ escalate: false }).error).to.not.equal(undefined);
    expect(conditionsSchema.validate({ minReports: 2 }).error).to.equal(undefined);
  });
});
