import { expect } from 'chai';
import { computePenalty } from '../../../common/domain/penalty.js';
import { parseReport, type NormalisedReport, type ReportKind } from '../../../common/domain/reports.js';

const CAPS = { cheating: 20, griefing: 15, toxicity: 10, afk: 5 };
const NOW = new Date('2026-11-22T10:00:00.000Z');

function ok(kind: ReportKind, report: Record<string, unknown>): NormalisedReport {
  const result = parseReport(kind, { report }, NOW);
  if (!result.ok) throw new Error(`expected valid, got ${JSON.stringify(result.errors)}`);
  return result.report;
}
function errors(kind: ReportKind, body: unknown) {
  const result = parseReport(kind, body, NOW);
  expect(result.ok, 'expected a rejection').to.equal(false);
  return (result as { errors: { field: string }[] }).errors.map((e) => e.field);
}

describe('report normalisation', () => {
  describe('flags', () => {
    const cases: [unknown, boolean][] = [
      [true, true],
      [false, false],
      ['true', true],
      ['FALSE', false],
      ['yes', true],
      [' No ', false],
      [1, true],
      [0, false],
      ['1', true],
      ['0', false],
    ];
    for (const [input, expected] of cases) {
      it(`reads ${JSON.stringify(input)} as ${expected}`, () => {
        expect(ok('anticheat', { isCheatDetected: input }).detected).to.equal(expected);
      });
    }
    for (const bad of ['maybe', 2, null, {}, 'y']) {
      it(`rejects ${JSON.stringify(bad)} naming the field`, () => {
        expect(errors('griefing', { report: { isGriefing: bad } })).to.deep.equal(['report.isGriefing']);
      });
    }
  });

  it('reads severities case-insensitively and rejects unknown ones', () => {
    expect(ok('toxicity', { isToxic: true, severity: ' CRITICAL ' }).severity).to.equal('critical');
    expect(errors('toxicity', { report: { isToxic: true, severity: 'extreme' } })).to.deep.equal([
      'report.severity',
    ]);
  });

  it('reads confidence as a fraction, a percentage number or a percentage string', () => {
    expect(ok('anticheat', { isCheatDetected: true, confidence: 0.8 }).details.confidence).to.equal(0.8);
    expect(ok('anticheat', { isCheatDetected: true, confidence: 80 }).details.confidence).to.equal(0.8);
    expect(ok('anticheat', { isCheatDetected: true, confidence: '80%' }).details.confidence).to.equal(0.8);
    expect(ok('anticheat', { isCheatDetected: true, confidence: 1 }).details.confidence).to.equal(1);
    expect(errors('anticheat', { report: { isCheatDetected: true, confidence: 101 } })).to.deep.equal([
      'report.confidence',
    ]);
    expect(errors('anticheat', { report: { isCheatDetected: true, confidence: 'high' } })).to.deep.equal([
      'report.confidence',
    ]);
  });

  it('keeps logs, given as a string or as lines, as text evidence with submittedAt and no control characters', () => {
    const fromLines = ok('anticheat', { isCheatDetected: true, logs: ['aim snap 180deg', 'x\u0007y'] });
    expect(fromLines.evidence).to.deep.equal([
      { type: 'text', content: 'aim snap 180deg\nxy', submittedAt: NOW.toISOString() },
    ]);
    const fromString = ok('anticheat', { isCheatDetected: true, logs: 'line1\r\nline2' });
    expect(fromString.evidence[0]!.content).to.equal('line1\nline2');
  });

  it('accepts screenshot and video evidence with http(s) URLs and text with content only', () => {
    const r = ok('anticheat', {
      isCheatDetected: true,
      evidence: [
        { type: 'video', url: 'https://cdn.example/clip.mp4' },
        { type: 'Screenshot', url: 'http://cdn.example/a.png' },
        { type: 'text', content: 'chat log' },
      ],
    });
    expect(r.evidence.map((e) => e.type)).to.deep.equal(['video', 'screenshot', 'text']);
    expect(r.evidence.every((e) => e.submittedAt === NOW.toISOString())).to.equal(true);
  });

  it('rejects evidence with other schemes, a missing url or content, unknown types and too many items', () => {
    expect(
      errors('anticheat', {
        report: { isCheatDetected: true, evidence: [{ type: 'video', url: 'javascript:alert(1)' }] },
      }),
    ).to.deep.equal(['report.evidence.0.url']);
    expect(
      errors('anticheat', {
        report: { isCheatDetected: true, evidence: [{ type: 'video', url: 'file:///etc/passwd' }] },
      }),
    ).to.deep.equal(['report.evidence.0.url']);
    expect(
      errors('anticheat', { report: { isCheatDetected: true, evidence: [{ type: 'video' }] } }),
    ).to.deep.equal(['report.evidence.0.url']);
    expect(
      errors('anticheat', { report: { isCheatDetected: true, evidence: [{ type: 'text' }] } }),
    ).to.deep.equal(['report.evidence.0.content']);
    expect(
      errors('anticheat', {
        report: { isCheatDetected: true, evidence: [{ type: 'audio', url: 'https://a.example' }] },
      }),
    ).to.deep.equal(['report.evidence.0.type']);
    const many = Array.from({ length: 11 }, () => ({ type: 'video', url: 'https://a.example/v' }));
    expect(errors('anticheat', { report: { isCheatDetected: true, evidence: many } })).to.deep.equal([
      'report.evidence',
    ]);
  });

  it('rejects unknown fields, so a body cannot set a trust score, penalty or studio', () => {
    const fields = errors('anticheat', {
      report: { isCheatDetected: true, trustScore: 100, penaltyPoints: 0, studio: 'x' },
    });
    expect(fields).to.have.members(['report.trustScore', 'report.penaltyPoints', 'report.studio']);
    expect(errors('anticheat', { report: { isCheatDetected: true }, trustScore: 5 })).to.deep.equal([
      'trustScore',
    ]);
  });

  it('requires the report envelope and the flag', () => {
    expect(errors('griefing', {})).to.deep.equal(['report']);
    expect(errors('griefing', { report: {} })).to.deep.equal(['report.isGriefing']);
    expect(errors('afk', undefined)).to.deep.equal(['body']);
  });

  it('reads the optional context and rejects a future occurredAt', () => {
    const r = ok('afk', {
      isAfk: true,
      matchId: 'm-1',
      reporterId: 'r-9',
      source: 'Game Server',
      occurredAt: '2026-11-22T09:00:00Z',
    });
    expect(r.context).to.deep.equal({
      matchId: 'm-1',
      reporterId: 'r-9',
      source: 'game_server',
      occurredAt: '2026-11-22T09:00:00.000Z',
    });
    expect(errors('afk', { report: { isAfk: true, occurredAt: '2999-01-01T00:00:00Z' } })).to.deep.equal([
      'report.occurredAt',
    ]);
    expect(errors('afk', { report: { isAfk: true, source: 'oracle' } })).to.deep.equal(['report.source']);
  });

  it('griefing: counts affected players from a number or a list and takes the worst incident severity', () => {
    const r = ok('griefing', {
      isGriefing: 'true',
      severity: 'low',
      affectedPlayers: ['a', 'b', 'c'],
      incidents: [{ severity: 'HIGH' }, { severity: 'medium' }],
    });
    expect(r.details.affectedPlayers).to.equal(3);
    expect(r.severity).to.equal('high');
    expect(ok('griefing', { isGriefing: true, affectedPlayers: 4 }).details.affectedPlayers).to.equal(4);
    expect(errors('griefing', { report: { isGriefing: true, affectedPlayers: ['a', 'a'] } })).to.deep.equal([
      'report.affectedPlayers.1',
    ]);
  });

  it('toxicity: normalises the category and keeps the chat lines as text evidence', () => {
    const r = ok('toxicity', {
      isToxic: 'yes',
      category: 'Hate Speech',
      messages: ['you are bad', ' gg ez '],
    });
    expect(r.details.category).to.equal('hate_speech');
    expect(r.evidence[0]!.content).to.equal('you are bad\ngg ez');
    expect(errors('toxicity', { report: { isToxic: true, category: 'rudeness' } })).to.deep.equal([
      'report.category',
    ]);
  });

  it('AFK: derives severity from the share of the match spent AFK and rejects AFK longer than the match', () => {
    expect(ok('afk', { isAfk: true, afkDurationSeconds: 100, matchDurationSeconds: 1000 }).severity).to.equal(
      'low',
    );
    expect(ok('afk', { isAfk: true, afkDurationSeconds: 900, matchDurationSeconds: 1000 }).severity).to.equal(
      'critical',
    );
    expect(
      ok('afk', { isAfk: true, afkDurationSeconds: 900, matchDurationSeconds: 1000, severity: 'low' })
        .severity,
    ).to.equal('low');
    expect(
      errors('afk', { report: { isAfk: true, afkDurationSeconds: 2000, matchDurationSeconds: 1000 } }),
    ).to.deep.equal(['report']);
  });
});

describe('penalty rules', () => {
  const table: [string, ReportKind, Record<string, unknown>, number][] = [
    ['anti-cheat, flag false', 'anticheat', { isCheatDetected: false, severity: 'critical' }, 0],
    ['anti-cheat low', 'anticheat', { isCheatDetected: true, severity: 'low' }, 5],
    ['anti-cheat default severity medium', 'anticheat', { isCheatDetected: true }, 10],
    [
      'anti-cheat high at 90%',
      'anticheat',
      { isCheatDetected: true, severity: 'high', confidence: '90%' },
      14,
    ],
    [
      'anti-cheat critical, full confidence: the cap',
      'anticheat',
      { isCheatDetected: true, severity: 'critical', confidence: 1 },
      20,
    ],
    ['griefing, flag false', 'griefing', { isGriefing: false, severity: 'critical' }, 0],
    ['griefing medium', 'griefing', { isGriefing: true, severity: 'medium' }, 6],
    [
      'griefing high, 3 affected, 2 incidents',
      'griefing',
      { isGriefing: true, affectedPlayers: 3, incidents: [{ severity: 'high' }, { severity: 'low' }] },
      13,
    ],
    [
      'griefing critical, everything maxed: capped at 15',
      'griefing',
      {
        isGriefing: true,
        severity: 'critical',
        affectedPlayers: 50,
        incidents: Array(10).fill({ severity: 'critical' }),
      },
      15,
    ],
    ['toxicity medium spam', 'toxicity', { isToxic: true, category: 'spam' }, 4],
    ['toxicity high threats', 'toxicity', { isToxic: true, severity: 'high', category: 'threats' }, 10],
    [
      'toxicity critical hate speech: capped at 10',
      'toxicity',
      { isToxic: true, severity: 'critical', category: 'hate_speech' },
      10,
    ],
    ['AFK low', 'afk', { isAfk: true, severity: 'low' }, 1],
    ['AFK high, 2 occurrences', 'afk', { isAfk: true, severity: 'high', occurrences: 2 }, 4],
    [
      'AFK critical, 10 occurrences: capped at 5',
      'afk',
      { isAfk: true, severity: 'critical', occurrences: 10 },
      5,
    ],
    ['AFK, flag false', 'afk', { isAfk: 'no', severity: 'critical' }, 0],
  ];
  for (const [name, kind, report, expected] of table) {
    it(`${name} -> ${expected}`, () => {
      expect(computePenalty(ok(kind, report), CAPS)).to.equal(expected);
    });
  }

  it('never exceeds a lowered cap', () => {
    const report = ok('anticheat', { isCheatDetected: true, severity: 'critical' });
    expect(computePenalty(report, { ...CAPS, cheating: 7 })).to.equal(7);
  });

  it('never exceeds the cap of its kind over many random reports', () => {
    const severities = ['low', 'medium', 'high', 'critical'];
    for (let i = 0; i < 500; i++) {
      const sev = severities[i % 4]!;
      const reports: [ReportKind, Record<string, unknown>][] = [
        ['anticheat', { isCheatDetected: true, severity: sev, confidence: (i % 101) / 100 }],
        [
          'griefing',
          {
            isGriefing: true,
            severity: sev,
            affectedPlayers: i % 40,
            incidents: Array(i % 12).fill({ severity: sev }),
          },
        ],
        ['toxicity', { isToxic: true, severity: sev, category: i % 2 ? 'threats' : 'spam' }],
        ['afk', { isAfk: true, severity: sev, occurrences: (i % 100) + 1 }],
      ];
      for (const [kind, body] of reports) {
        const r = ok(kind, body);
        const p = computePenalty(r, CAPS);
        expect(p).to.be.within(0, CAPS[r.type]);
      }
    }
  });
});
