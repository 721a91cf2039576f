import { expect } from 'chai';
import fc from 'fast-check';
import {
  REPORT_ORIGINS,
  REDRESS,
  chosenCategory,
  placementAuditDetails,
  type SanctionDecision,
} from '../../../common/domain/decision-record.js';
import { SANCTION_TYPES } from '../../../common/domain/sanctions.js';
import { offenseStatement, sanctionStatement } from '../../../common/domain/statement-of-reasons.js';
import {
  CATEGORY_OF_KIND,
  TDB,
  isRestriction,
  transparencyStatement,
} from '../../../common/domain/transparency-statement.js';
import { validateStatement } from '../../../scripts/lib/transparency-database.js';

const KINDS = ['cheating', 'toxicity', 'afk', 'griefing'] as const;
const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
const day = 86_400_000;
const at = new Date('2026-11-20T10:00:00Z').getTime();

/** Every way a sanction is decided: who, on what case (its origins and notices' categories), where, how long. */
const decisionArb: fc.Arbitrary<SanctionDecision> = fc
  .record({
    type: fc.constantFrom(...SANCTION_TYPES.filter(isRestriction)),
    scope: fc.constantFrom<'global' | 'studio'>('global', 'studio'),
    decidedBy: fc.constantFrom<SanctionDecision['decidedBy']>('moderator', 'studio', 'strike_ladder', 'rule'),
    wave: fc.option(fc.record({ size: fc.integer({ min: 1, max: 5000 }), approved: fc.boolean() }), {
      nil: null,
    }),
    hasCase: fc.boolean(),
    extends: fc.boolean(),
    kind: fc.constantFrom(...KINDS),
    severity: fc.constantFrom(...SEVERITIES),
    origins: fc.uniqueArray(fc.constantFrom(...REPORT_ORIGINS), { minLength: 1, maxLength: 4 }),
    categories: fc.uniqueArray(fc.constantFrom(...TDB.category), { maxLength: 2 }),
    category: fc.option(fc.constantFrom(...TDB.category), { nil: null }),
    days: fc.integer({ min: 1, max: 365 }),
  })
  .map((g) => ({
    sanctionId: '7d2f6b1e-3c4a-4d5e-8f90-a1b2c3d4e5f6',
    type: g.type,
    // A studio decides for its own games only.
    scope: g.decidedBy === 'studio' ? 'studio' : g.scope,
    scopeName: g.decidedBy === 'studio' || g.scope === 'studio' ? 'Acme Games' : null,
    startsAt: new Date(at),
    expiresAt: g.type === 'permanent_ban' ? null : new Date(at + g.days * day),
    createdAt: new Date(at),
    // The ladder and a rule decide on a case; a wave is a moderator's (or a studio's) decision.
    decidedBy: g.decidedBy,
    rule: g.decidedBy === 'rule' ? { name: 'Rule name', version: 2 } : null,
    wave:
      (g.decidedBy === 'moderator' || g.decidedBy === 'studio') && g.wave
        ? { id: 'b3c1e2d4-5f60-4a7b-8c9d-0e1f2a3b4c5d', ...g.wave }
        : null,
    // Extending a linked account's sanction is a moderator's decision.
    extendedFrom:
      g.decidedBy === 'moderator' && g.extends
        ? { sanctionId: 'c4d2f3e5-6a71-4b8c-9dae-1f2a3b4c5d6e', kinds: ['hardware_id'] }
        : null,
    case:
      g.hasCase || g.decidedBy === 'strike_ladder' || g.decidedBy === 'rule'
        ? {
            type: g.kind,
            severity: g.severity,
            firstReportAt: new Date(at - day),
            origins: g.origins,
            // Only notices name a category.
            categories: g.origins.some((o) => o === 'notice' || o === 'trusted_flagger') ? g.categories : [],
          }
        : null,
    category: g.category,
  }));

const reasons = (d: SanctionDecision) =>
  sanctionStatement(
    { decision: d, reason: 'the reason given', revokedAt: null, revokeReason: null, keptOnAppeal: null },
    { windowDays: 30, now: new Date(at), appeal: null },
  );
const opts = { territorialScope: [...TDB.countries] };

/**
 * Issue 49: the player's statement of reasons and the regulator's statement are both made from one
 * decision record; over every way a sanction is decided they state the same source, scope, period,
 * automation and category as the record, and nothing it does not hold.
 */
describe('a sanction decision record, told to the player and to the regulator (property)', () => {
  it('both messages state the record’s facts and nothing more, whatever the decision', () => {
    fc.assert(
      fc.property(decisionArb, (d) => {
        const tdb = transparencyStatement(d, opts);
        const sor = reasons(d);
        // Valid by the database's rules, always.
        expect(validateStatement(tdb)).to.deep.equal({});
        // Scope and period: the same in both.
        expect(sor.scope.kind).to.equal(d.scope);
        expect(tdb.decision_facts).to.include(
          d.scope === 'global' ? 'in every game' : "in the studio's games",
        );
        expect(sor.period).to.deep.equal({
          startsAt: d.startsAt.toISOString(),
          endsAt: d.expiresAt?.toISOString() ?? null,
        });
        expect(tdb.application_date).to.equal(d.startsAt.toISOString().slice(0, 10));
        // Source: a notice only when one led to it; players only when they reported.
        const origins = d.case?.origins ?? [];
        const noticed = origins.includes('notice') || origins.includes('trusted_flagger');
        const evasionAlone = origins.length > 0 && origins.every((o) => o === 'evasion_check');
        expect(
          tdb.source_type === 'SOURCE_ARTICLE_16' || tdb.source_type === 'SOURCE_TRUSTED_FLAGGER',
        ).to.equal(noticed);
        for (const text of [String(tdb.decision_facts), sor.facts]) {
          expect(/notified it/i.test(text), text).to.equal(noticed);
          expect(/players reported it/i.test(text), text).to.equal(origins.includes('player'));
          expect(/anti-cheat system detected it/.test(text), text).to.equal(
            origins.includes('anticheat_system'),
          );
          // The sign-in check's suspicion of evasion (issue 53) only when it led to the case.
          expect(/linked-accounts check detected it/i.test(text), text).to.equal(
            origins.includes('evasion_check'),
          );
          // A case of the sign-in check's suspicion alone held no report: none is said to exist.
          if (evasionAlone) expect(text, text).to.not.match(/reports of|reported it/);
          // No case, no report: nothing was "upheld" or "reviewed".
          if (!d.case) expect(text, text).to.not.match(/upheld|reviewed reports|reported it|notified it/);
          // A wave or four eyes only when there was one.
          expect(/ban wave/.test(text), text).to.equal((d.wave?.size ?? 0) > 1);
          expect(/second moderator approved/.test(text), text).to.equal(d.wave?.approved === true);
          // Never a rule's name to the regulator; never the reason a person wrote.
          expect(tdb.decision_facts).to.not.include('Rule name');
          expect(text).to.not.include('the reason given');
        }
        // Automation: the same in both.
        const automatedDetection =
          origins.includes('anticheat_system') ||
          origins.includes('game_server') ||
          origins.includes('evasion_check');
        expect(tdb.automated_detection).to.equal(automatedDetection ? 'Yes' : 'No');
        const fully = d.decidedBy === 'strike_ladder' || d.decidedBy === 'rule';
        expect(sor.automated).to.equal(fully);
        expect(tdb.automated_decision === 'AUTOMATED_DECISION_FULLY').to.equal(fully);
        // Category: the one chosen, else the notice's, else the kind's.
        expect(tdb.category).to.equal(
          chosenCategory(d) ??
            // A suspected evasion alone is about evading a ban, not the banned account's kind.
            (d.case && !evasionAlone
              ? CATEGORY_OF_KIND[d.case.type].category
              : 'STATEMENT_CATEGORY_OTHER_VIOLATION_TC'),
        );
        // Redress beyond the appeal, for every decision.
        expect(sor.redress).to.equal(REDRESS);
        // The audit entry, made from the record too: automated exactly when the other two say so,
        // the ladder's only when the ladder decided, the rule and the wave only when there was one.
        const audit = placementAuditDetails(d);
        expect(audit.automated === true).to.equal(fully);
        expect(audit.strikeLadder === true).to.equal(d.decidedBy === 'strike_ladder');
        expect(audit.ruleVersion).to.equal(d.decidedBy === 'rule' ? d.rule!.version : undefined);
        expect(audit.waveId).to.equal(d.wave?.id);
        expect(audit.extendedFrom).to.equal(d.extendedFrom?.sanctionId);
      }),
      { numRuns: 500 },
    );
  });
});

/**
 * Issue 49 with issue 53: the player's statement about an offense the sign-in check filed (a
 * suspected evasion of a ban, no report) says so in every state it can reach, and never that a report
 * was filed, reviewed or dismissed; its ground is the terms' rule against evading a ban.
 */
describe("the player's statement of a suspected evasion (property)", () => {
  it('in every state, no report is said to exist, and the ground is evading a ban', () => {
    const facts = fc.record({
      type: fc.constantFrom(...KINDS),
      status: fc.constantFrom('applied', 'held', 'released', 'restored', 'dropped' as const),
      restoredBy: fc.constantFrom<'dismissal' | 'appeal' | null>('dismissal', 'appeal', null),
      caseOutcome: fc.constantFrom<'upheld' | 'dismissed' | null>('upheld', 'dismissed', null),
      points: fc.integer({ min: 1, max: 50 }),
    });
    fc.assert(
      fc.property(facts, (f) => {
        const sor = offenseStatement(
          {
            id: 'e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b',
            type: f.type,
            severity: 'high',
            source: 'evasion_check',
            createdAt: new Date(at),
            status: f.status,
            penaltyPoints: f.status === 'held' || f.status === 'dropped' ? 0 : f.points,
            penaltyHeld: f.points,
            penaltyRestored: f.status === 'restored' ? f.points : 0,
            restoredBy:
              f.status === 'restored' || f.status === 'dropped' ? (f.restoredBy ?? 'dismissal') : null,
            caseOutcome: f.caseOutcome,
            resolvedAt: f.caseOutcome ? new Date(at + day) : null,
            cap: 50,
            statusReason: 'evasion_check',
          },
          { windowDays: 30, now: new Date(at), appeal: null },
        );
        for (const text of [sor.decision, sor.facts, sor.ground, sor.automatedMeans ?? '', sor.state])
          expect(text, text).to.not.match(/\breports?\b/i);
        expect(sor.facts).to.match(/^A suspected evasion of a ban/);
        expect(sor.ground).to.match(
          /^The game's terms of service: no playing on another account to evade a ban\./,
        );
      }),
      { numRuns: 200 },
    );
  });
});
