import { expect } from 'chai';
import { SANCTION_TYPES } from '../../../common/domain/sanctions.js';
import {
  isRestriction,
  TDB,
  transparencyStatement,
  type SanctionDecision,
} from '../../../common/domain/transparency-statement.js';
import { validateStatement } from '../../../scripts/lib/transparency-database.js';

const base: SanctionDecision = {
  sanctionId: '7d2f6b1e-3c4a-4d5e-8f90-a1b2c3d4e5f6',
  type: 'temporary_ban',
  scope: 'global',
  startsAt: new Date('2026-11-26T10:00:00Z'),
  expiresAt: new Date('2026-12-03T10:00:00Z'),
  decidedBy: 'moderator',
  case: {
    type: 'cheating',
    severity: 'high',
    firstReportAt: new Date('2026-11-25T08:00:00Z'),
    origins: ['anticheat_system'],
    categories: [],
  },
  createdAt: new Date('2026-11-26T10:00:00Z'),
};
const opts = { territorialScope: [...TDB.countries] };

describe('Transparency Database statements: one mapping from a restriction (issue 35)', () => {
  it('every restriction type maps to a statement the database’s rules take', () => {
    for (const type of SANCTION_TYPES.filter(isRestriction))
      for (const kind of ['cheating', 'toxicity', 'afk', 'griefing'] as const) {
        const s = transparencyStatement(
          {
            ...base,
            type,
            expiresAt: type === 'permanent_ban' ? null : base.expiresAt,
            case: { ...base.case!, type: kind },
          },
          opts,
        );
        expect(validateStatement(s), `${type} on ${kind}`).to.deep.equal({});
      }
    // Without a case (a studio's or a moderator's decision on the account itself).
    expect(
      validateStatement(transparencyStatement({ ...base, case: null, decidedBy: 'studio' }, opts)),
    ).to.deep.equal({});
  });

  it('a warning restricts nothing: it owes no statement', () => {
    expect(isRestriction('warning')).to.equal(false);
    expect(() => transparencyStatement({ ...base, type: 'warning' }, opts)).to.throw(/warning/);
  });

  it('the restriction fields follow the type and its end', () => {
    const ban = transparencyStatement(base, opts);
    expect(ban.decision_account).to.equal('DECISION_ACCOUNT_SUSPENDED');
    expect(ban.end_date_account_restriction).to.equal('2026-12-03');
    const permanent = transparencyStatement({ ...base, type: 'permanent_ban', expiresAt: null }, opts);
    expect(permanent.decision_account).to.equal('DECISION_ACCOUNT_TERMINATED');
    expect(permanent).to.not.have.property('end_date_account_restriction');
    for (const type of ['chat_restriction', 'matchmaking_restriction'] as const) {
      const s = transparencyStatement({ ...base, type }, opts);
      expect(s.decision_provision).to.equal('DECISION_PROVISION_PARTIAL_SUSPENSION');
      expect(s.end_date_service_restriction).to.equal('2026-12-03');
      expect(s).to.not.have.property('decision_account');
    }
  });

  it('category and content type from the kind (the documented table)', () => {
    const of = (kind: 'cheating' | 'toxicity' | 'afk' | 'griefing') =>
      transparencyStatement({ ...base, case: { ...base.case!, type: kind } }, opts);
    expect(of('toxicity').category).to.equal('STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH');
    expect(of('toxicity').content_type).to.deep.equal(['CONTENT_TYPE_TEXT']);
    for (const kind of ['cheating', 'afk', 'griefing'] as const) {
      expect(of(kind).category).to.equal('STATEMENT_CATEGORY_OTHER_VIOLATION_TC');
      expect(of(kind).content_type).to.deep.equal(['CONTENT_TYPE_OTHER']);
      expect(of(kind).content_type_other).to.be.a('string');
    }
  });

  it('the category someone chose instead of the kind’s wins', () => {
    const s = transparencyStatement({ ...base, category: 'STATEMENT_CATEGORY_SCAMS_AND_FRAUD' }, opts);
    expect(s.category).to.equal('STATEMENT_CATEGORY_SCAMS_AND_FRAUD');
    expect(validateStatement(s)).to.deep.equal({});
  });

  it('source and automation from how it was detected and decided', () => {
    const s = (f: Partial<SanctionDecision>, c: Partial<NonNullable<SanctionDecision['case']>> = {}) =>
      transparencyStatement({ ...base, ...f, case: { ...base.case!, ...c } }, opts);
    // A moderator on an anti-cheat detection: the platform's own initiative, partly automated.
    expect(s({})).to.include({
      source_type: 'SOURCE_VOLUNTARY',
      automated_detection: 'Yes',
      automated_decision: 'AUTOMATED_DECISION_PARTIALLY',
    });
    // The strike ladder: fully automated.
    expect(s({ decidedBy: 'strike_ladder' }).automated_decision).to.equal('AUTOMATED_DECISION_FULLY');
    // A rule that placed it on its own (issue 38): fully automated, and its facts say so.
    const byRule = s({ decidedBy: 'rule' });
    expect(byRule.automated_decision).to.equal('AUTOMATED_DECISION_FULLY');
    expect(byRule.decision_facts).to.match(/automated rule/);
    // A moderator on players' reports: a notification, not automated.
    expect(s({}, { origins: ['player'] })).to.include({
      source_type: 'SOURCE_TYPE_OTHER_NOTIFICATION',
      automated_detection: 'No',
      automated_decision: 'AUTOMATED_DECISION_NOT_AUTOMATED',
    });
    // A studio's own decision: not automated as far as the service knows.
    expect(s({ decidedBy: 'studio' }).automated_decision).to.equal('AUTOMATED_DECISION_NOT_AUTOMATED');
    // Notices (issue 37) and trusted flaggers.
    expect(s({}, { origins: ['notice'] }).source_type).to.equal('SOURCE_ARTICLE_16');
    expect(s({}, { origins: ['trusted_flagger', 'player'] }).source_type).to.equal('SOURCE_TRUSTED_FLAGGER');
    // No source_identity is ever sent: it would name a person.
    expect(s({}, { origins: ['player'] })).to.not.have.property('source_identity');
  });

  it('the facts say what happened, and nothing that did not (issue 49)', () => {
    const facts = (f: Partial<SanctionDecision>) =>
      transparencyStatement({ ...base, ...f }, opts).decision_facts!;
    // A moderator's own sanction: no case, no report, so none was upheld.
    const own = facts({ case: null });
    expect(own).to.match(
      /^A moderator decided it on their own initiative, not as the decision on a case of reports\./,
    );
    expect(own).to.not.match(/reviewed reports|upheld/);
    // A ban wave and a ban approved by four eyes: placed by a moderator on no report, approved.
    expect(facts({ case: null, wave: { size: 40, approved: true } })).to.match(
      /own initiative, not as the decision on a case of reports, as part of a ban wave of 40 accounts, which a second moderator approved before it ran\./,
    );
    expect(facts({ case: null, wave: { size: 1, approved: true } })).to.match(
      /own initiative, not as the decision on a case of reports; a second moderator approved it before it took effect\./,
    );
    // A notice: a member of the public notified it, in the category the notifier chose; never "players".
    const noticed = transparencyStatement(
      {
        ...base,
        case: {
          ...base.case!,
          type: 'toxicity',
          origins: ['notice'],
          categories: ['STATEMENT_CATEGORY_CYBER_VIOLENCE'],
        },
      },
      opts,
    );
    expect(noticed.source_type).to.equal('SOURCE_ARTICLE_16');
    expect(noticed.category).to.equal('STATEMENT_CATEGORY_CYBER_VIOLENCE');
    expect(noticed.decision_facts).to.include('A member of the public notified it (DSA Art. 16)');
    expect(noticed.decision_facts).to.not.include('players');
    expect(validateStatement(noticed)).to.deep.equal({});
    // The moderator's chosen category still wins over the notice's.
    expect(
      transparencyStatement(
        {
          ...base,
          category: 'STATEMENT_CATEGORY_VIOLENCE',
          case: { ...base.case!, categories: ['STATEMENT_CATEGORY_CYBER_VIOLENCE'] },
        },
        opts,
      ).category,
    ).to.equal('STATEMENT_CATEGORY_VIOLENCE');
    // Anti-cheat: said as such.
    expect(facts({})).to.include("The game's anti-cheat system detected it.");
    // A rule: said, without its name (an administrator's words).
    expect(facts({ decidedBy: 'rule', rule: { name: 'SECRETRULENAME', version: 3 } })).to.not.include(
      'SECRETRULENAME',
    );
  });

  it('dates, scope and the puid: the decision’s own id', () => {
    const s = transparencyStatement(base, { territorialScope: ['DE', 'FR'] });
    expect(s).to.include({ content_date: '2026-11-25', application_date: '2026-11-26' });
    expect(s.territorial_scope).to.deep.equal(['DE', 'FR']);
    expect(s.puid).to.equal(`sanction-${base.sanctionId}`);
  });
});

describe('The stand-in’s rules (what the tests hold statements to)', () => {
  const valid = () => transparencyStatement(base, opts) as Record<string, unknown>;
  it('refuses what the database refuses, field by field', () => {
    expect(validateStatement(valid())).to.deep.equal({});
    const broken = (change: Record<string, unknown>) =>
      Object.keys(validateStatement({ ...valid(), ...change }));
    expect(broken({ decision_account: undefined })).to.include('decision_account');
    expect(broken({ decision_ground: 'DECISION_GROUND_ILLEGAL_CONTENT' })).to.include.members([
      'illegal_content_legal_ground',
      'illegal_content_explanation',
    ]);
    expect(broken({ incompatible_content_ground: undefined })).to.include('incompatible_content_ground');
    expect(broken({ content_type: ['CONTENT_TYPE_OTHER'], content_type_other: undefined })).to.include(
      'content_type_other',
    );
    expect(broken({ category: 'STATEMENT_CATEGORY_CHEATING' })).to.include('category');
    expect(broken({ territorial_scope: ['US'] })).to.include('territorial_scope');
    expect(broken({ content_date: '26/11/2026' })).to.include('content_date');
    expect(broken({ application_date: '2019-12-31' })).to.include('application_date');
    expect(broken({ decision_facts: 'x'.repeat(5001) })).to.include('decision_facts');
    expect(broken({ automated_decision: 'Yes' })).to.include('automated_decision');
    expect(broken({ puid: 'sanction/1' })).to.include('puid');
    expect(broken({ puid: 'x'.repeat(501) })).to.include('puid');
  });
});
