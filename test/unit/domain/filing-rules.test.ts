import fs from 'node:fs';
import { expect } from 'chai';
import { FILING_RULES, STATUS_REASONS } from '../../../common/domain/filing-rules.js';

describe('Filing rules: named once in the domain and once in the SQL function that enforces them', () => {
  const sql = fs.readFileSync('common/data/functions/pt_file_reports.sql', 'utf8');
  const header = sql.slice(0, sql.search(/^CREATE/m));

  it("the function file's header lists the domain's rules, in the same order", () => {
    const named = [...header.matchAll(/--\s+Rule ([a-z_]+):/g)].map((m) => m[1]);
    expect(named).to.deep.equal(Object.keys(FILING_RULES));
  });

  it('every status reason a rule gives is what the function writes', () => {
    expect(STATUS_REASONS).to.deep.equal([
      'no_finding',
      'reporter_muted',
      'party_report',
      'notice',
      'evasion_check',
      'rule_hold',
      'brigading',
      'reporter_credibility',
      'studio_budget',
    ]);
    const body = sql.slice(sql.search(/^CREATE/m));
    for (const reason of STATUS_REASONS) expect(body, reason).to.include(`v_reason := '${reason}'`);
  });

  it('the header points to the guide section that documents the rules for clients', () => {
    expect(header).to.include('docs/studios.md "Trust integrity"');
    expect(fs.readFileSync('docs/studios.md', 'utf8')).to.include('### Trust integrity');
  });
});
