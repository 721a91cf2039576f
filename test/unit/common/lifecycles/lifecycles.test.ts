import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { claimVerdict, releaseVerdict, type Lease } from '../../../../common/lifecycles/lease.js';
import { approvalVerdict, waitsForApproval } from '../../../../common/lifecycles/wave.js';
import { confirmedAtOnce } from '../../../../common/lifecycles/erasure.js';

const moderator = { id: 'm1', role: 'moderator' };
const other = { id: 'm2', role: 'moderator' };
const admin = { id: 'a1', role: 'admin' };
const held: Lease = { holderId: 'm1', expiresAt: new Date('2026-11-26T10:00:00Z') };

/** Every source file of the service (not the tests, not the migrations' history). */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'migrations' || e.name === 'generated' ? [] : sources(p);
    return /\.(ts|tsx|sql)$/.test(e.name) ? [p] : [];
  });
}

describe('life cycles with one writer each (common/lifecycles/): the lease, appeals, review cases', () => {
  it('a claim takes a free lease and renews its own; another live one is refused, to admins too, on a case', () => {
    expect(claimVerdict('case', null, moderator)).to.deep.equal({ verdict: 'take' });
    expect(claimVerdict('case', held, moderator)).to.deep.equal({ verdict: 'renew' });
    expect(claimVerdict('case', held, other)).to.deep.equal({ verdict: 'refused', holder: held });
    expect(claimVerdict('case', held, admin)).to.deep.equal({ verdict: 'refused', holder: held });
  });

  it("an admin's claim takes an appeal's live lease over; a moderator's is refused", () => {
    expect(claimVerdict('appeal', held, admin)).to.deep.equal({ verdict: 'take_over', from: held });
    expect(claimVerdict('appeal', held, other)).to.deep.equal({ verdict: 'refused', holder: held });
    expect(claimVerdict('appeal', held, moderator)).to.deep.equal({ verdict: 'renew' });
  });

  it('its holder releases it, an admin anyone’s; nobody releases what is not held', () => {
    expect(releaseVerdict(held, moderator)).to.deep.equal({ verdict: 'release', of: held });
    expect(releaseVerdict(held, admin)).to.deep.equal({ verdict: 'release', of: held });
    expect(releaseVerdict(held, other)).to.deep.equal({ verdict: 'refused', holder: held });
    expect(releaseVerdict(null, admin)).to.deep.equal({ verdict: 'not_claimed' });
  });

  // Issue 49: a transition's condition lives beside its transitions, so changing one rule opens one module.
  it("four eyes, in the wave's life cycle: who waits for a second moderator, and who may be it", () => {
    const byMod = { kind: 'moderator', id: 'm1' } as const;
    const wave = (size: number, type = 'temporary_ban' as const, protectedMembers = 0) => ({
      createdBy: byMod,
      size,
      type,
      protectedMembers,
    });
    expect(waitsForApproval(100, wave(100))).to.equal(false);
    expect(waitsForApproval(100, wave(101))).to.equal(true);
    expect(waitsForApproval(100, { ...wave(1), type: 'permanent_ban' })).to.equal(true);
    expect(waitsForApproval(100, wave(1, 'temporary_ban', 1))).to.equal(true);
    // A studio acts in its own games: its wave never waits.
    expect(waitsForApproval(0, { ...wave(5000), createdBy: { kind: 'studio', id: 's1' } })).to.equal(false);
    const made = { created_by_moderator: 'm1' };
    expect(approvalVerdict(made, { kind: 'moderator', id: 'm2', role: 'admin' })).to.equal('approve');
    expect(approvalVerdict(made, { kind: 'moderator', id: 'm1', role: 'admin' })).to.equal('own_wave');
    expect(approvalVerdict(made, { kind: 'moderator', id: 'm2', role: 'moderator' })).to.equal(
      'not_an_admin',
    );
    expect(approvalVerdict(made, { kind: 'studio', id: 's1' })).to.equal('not_an_admin');
  });

  it("an erasure's confirmation, in its life cycle: a studio's request about others' players waits for an admin", () => {
    expect(confirmedAtOnce('studio', 0)).to.equal(true);
    expect(confirmedAtOnce('studio', 1)).to.equal(false);
    expect(confirmedAtOnce('admin', 3)).to.equal(true);
    expect(confirmedAtOnce('operator', 3)).to.equal(true);
  });

  /** The service's source files, other than these life cycle modules, whose text matches `pattern`. */
  const writersBesides = (modules: string[], pattern: RegExp) =>
    ['common', 'api', 'worker', 'scripts']
      .flatMap(sources)
      .filter((file) => !modules.some((m) => file === path.join('common', 'lifecycles', m)))
      .filter((file) => pattern.test(fs.readFileSync(file, 'utf8')));
  // Writing is inserting, updating and deleting (issue 49: DELETE was not looked at).
  const writes = (table: string) => new RegExp(`(INSERT\\s+INTO|UPDATE|DELETE\\s+FROM)\\s+${table}\\b`, 'i');
  const movesStatus = (table: string) =>
    new RegExp(`UPDATE\\s+${table}(?:\\s+\\w+)?\\s+SET[^;\`]*?\\bstatus\\s*=`, 'i');

  it("one module each writes an appeal, a review case and an offense's status: no other source file does", () => {
    expect(writersBesides(['appeal.ts', 'lease.ts'], writes('appeals'))).to.deep.equal([]);
    // A review case is written only by its module at all: filed into, assigned, escalated, moved,
    // re-routed, resolved.
    expect(writersBesides(['review-case.ts'], writes('review_cases'))).to.deep.equal([]);
    expect(writersBesides(['offense.ts'], movesStatus('offenses'))).to.deep.equal([]);
  });

  it('one module writes sanctions and strikes: no other source file inserts or updates them', () => {
    expect(writersBesides(['sanction.ts'], writes('(sanctions|strikes)'))).to.deep.equal([]);
  });

  it('one module writes a decision record (issue 49): no other source file inserts, updates or deletes one', () => {
    expect(writersBesides(['decision-record.ts'], writes('decision_records'))).to.deep.equal([]);
  });

  it('one module writes a Transparency Database statement (issue 35): no other source file inserts or updates one', () => {
    expect(writersBesides(['transparency-statement.ts'], writes('transparency_statements'))).to.deep.equal(
      [],
    );
  });

  it('one module writes the mails owed to notifiers (issue 51): no other source file inserts or updates one', () => {
    expect(writersBesides(['notifier-mail.ts'], writes('notifier_mails'))).to.deep.equal([]);
  });

  it('one module writes signals, the links they make and evasion suspicions (issue 53)', () => {
    expect(
      writersBesides(['signals.ts'], writes('(signals|account_links|evasion_suspicions)')),
    ).to.deep.equal([]);
  });

  it('one module writes matches, their players and their partitions (issue 54)', () => {
    expect(writersBesides(['matches.ts'], writes('(matches|player_matches)'))).to.deep.equal([]);
    expect(
      writersBesides(['matches.ts'], /(CREATE|DROP)\s+TABLE\s+(\$\{\w+\}|(player_)?matches_p)/i),
    ).to.deep.equal([]);
  });

  it('one module writes commendations and honor (issue 54)', () => {
    expect(writersBesides(['honor.ts'], writes('(commendations|player_honor)'))).to.deep.equal([]);
  });

  it('one module writes conduct counts, conduct summaries and the restrictions summarized (issue 54)', () => {
    expect(
      writersBesides(['conduct.ts'], writes('(player_conduct|conduct_summaries|conduct_restrictions)')),
    ).to.deep.equal([]);
  });

  it("one module writes the compliance officer's orders and disputes (issue 51)", () => {
    expect(writersBesides(['compliance-record.ts'], writes('(authority_orders|disputes)'))).to.deep.equal([]);
  });

  it('one module each writes notices, trusted flaggers, misuse marks and measures, and erasures (issues 36, 37)', () => {
    expect(writersBesides(['notice.ts'], writes('(notices|notice_quota)'))).to.deep.equal([]);
    expect(writersBesides(['trusted-flagger.ts'], writes('trusted_flaggers'))).to.deep.equal([]);
    expect(writersBesides(['misuse.ts'], writes('(misuse_marks|misuse_measures)'))).to.deep.equal([]);
    expect(writersBesides(['erasure.ts'], writes('erasures'))).to.deep.equal([]);
  });

  it('one module each writes ban waves and their members, and rules, their versions and matches (issue 38)', () => {
    expect(writersBesides(['wave.ts'], writes('(waves|wave_members)'))).to.deep.equal([]);
    expect(writersBesides(['rule.ts'], writes('(rules|rule_versions|rule_matches)'))).to.deep.equal([]);
  });

  it('one module writes a webhook delivery and its endpoint’s breaker (issue 49: the processor, a repository and the erasure did)', () => {
    expect(writersBesides(['webhook-delivery.ts'], writes('webhook_deliveries'))).to.deep.equal([]);
    expect(
      writersBesides(
        ['webhook-delivery.ts'],
        /UPDATE\s+webhooks\s+SET[^;`]*?\b(attempt_failures|parked_until|parks|consecutive_failures)\s*=/i,
      ),
    ).to.deep.equal([]);
  });

  it('one module writes an offense, whatever the column (issue 49): the filing function creates them, nothing else but offense.ts writes them', () => {
    expect(
      writersBesides(['offense.ts'], writes('offenses')).filter(
        // The report statement (a database function) is where offenses are made.
        (file) => file !== path.join('common', 'data', 'functions', 'pt_file_reports.sql'),
      ),
    ).to.deep.equal([]);
  });

  it("one module writes a reporter's mute, by hand or by Art. 23 (issue 49: a repository did too)", () => {
    expect(writersBesides(['misuse.ts'], /INSERT\s+INTO\s+reporters\s*\([^)]*\bmuted_/i)).to.deep.equal([]);
    expect(
      writersBesides(
        ['misuse.ts'],
        /UPDATE\s+reporters\s+SET[^;`]*?\b(muted_at|muted_by|mute_note|muted_until)\s*=/i,
      ),
    ).to.deep.equal([]);
  });

  it('no repository or data module imports a life cycle: states, rows and shared SQL live below both (issue 49)', () => {
    const upward = sources('common/data').filter((file) =>
      /from '(\.\.\/)+lifecycles\//.test(fs.readFileSync(file, 'utf8')),
    );
    expect(upward).to.deep.equal([]);
  });

  it('is the only code that writes a lease: no other source file assigns claimed_by or claim_expires_at', () => {
    expect(writersBesides(['lease.ts'], /(?<![.\w])(claimed_by|claim_expires_at)\s*=(?!=)/)).to.deep.equal(
      [],
    );
  });
});
