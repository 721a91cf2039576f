import { expect } from 'chai';
import { auditInWords } from '../../../common/domain/audit-words.js';
import { AUDIT_ACTIONS } from '../../../common/data/repos/moderation.js';

const words = (action: string, details: Record<string, unknown> = {}, names = {}) =>
  auditInWords({ action, outcome: null, details, queueName: null, scopeName: null, ...names });

describe('an audit entry in words (the audit log and the timeline say the same)', () => {
  it('has words for every action, never its identifier', () => {
    for (const action of AUDIT_ACTIONS) {
      const said = words(action);
      expect(said, action).not.to.include('_');
      expect(said, action).not.to.equal(action);
      expect(said, action).to.match(/^[A-Z]/);
    }
  });

  it('says to whom a case was assigned, and when the assignment was taken back', () => {
    expect(words('assign', { assignedTo: 'ana' })).to.equal('Assigned the case to ana');
    expect(words('assign', { assignedTo: null })).to.equal('Took the assignment back');
  });

  it('names the sanction and where it applies, and the queue by its name', () => {
    expect(words('place_sanction', { type: 'temporary_ban', scope: 'global' })).to.equal(
      'Placed a temporary ban in every game',
    );
    expect(
      words('revoke_sanction', { type: 'chat_restriction', scope: 'f3c1' }, { scopeName: 'Acme Games' }),
    ).to.equal('Revoked a chat restriction in the games of Acme Games');
    expect(words('escalate', { to: 'queue', queue: 'senior' }, { queueName: 'Senior review' })).to.equal(
      'Moved the case to the Senior review queue',
    );
    expect(words('escalate', { to: 'senior' })).to.equal('Escalated the case to the senior role');
  });

  it('names who decided a sanction the moderator did not place, and says no scope it does not know (issue 49)', () => {
    expect(
      words('place_sanction', { type: 'matchmaking_restriction', scope: 'global', strikeLadder: true }),
    ).to.equal(
      'The strike ladder placed a matchmaking restriction in every game (the upheld case added a strike)',
    );
    expect(words('place_sanction', { type: 'temporary_ban', scope: 'global', ruleId: 'r1' })).to.equal(
      'A rule placed a temporary ban in every game',
    );
    // An entry without its scope (an older one) is not "every game".
    expect(words('place_sanction', { type: 'temporary_ban' })).to.equal('Placed a temporary ban');
    expect(words('place_sanction', {})).to.equal('Placed a sanction');
  });

  it('says what an appeal decision did', () => {
    expect(
      words('decide_appeal', {
        decision: 'granted',
        pointsRefunded: 7,
        sanctionsRevoked: ['a'],
        sanctionsKept: [{ sanctionId: 'b', reason: 'x' }],
      }),
    ).to.equal('Granted an appeal (7 points given back; 1 sanction(s) revoked; 1 kept in force)');
    expect(words('decide_appeal', { decision: 'denied' })).to.equal('Denied an appeal');
    expect(
      auditInWords({ action: 'resolve', outcome: 'upheld', details: {}, queueName: null, scopeName: null }),
    ).to.equal('Upheld the case');
  });
});
