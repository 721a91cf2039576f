import { expect } from 'chai';
import { PARTY_TRUST_GAP, partyStanding, type PartyMember } from '../../../../common/domain/parties.js';

const member = (serviceId: string, trustScore: number, extra: Partial<PartyMember> = {}): PartyMember => ({
  serviceId,
  trustScore,
  activeSanctions: [],
  evasionSuspected: false,
  ...extra,
});

describe('parties at the lobby check (issue 54): the party at its lowest member', () => {
  it('takes the lowest trust, and warns of a member only from PARTY_TRUST_GAP points below the lowest of the others', () => {
    const edge = partyStanding([member('a', 100), member('b', 100 - PARTY_TRUST_GAP)]);
    expect(edge.trustScore).to.equal(90);
    expect(edge.warnings.map((w) => [w.serviceId, w.code, w.lowersBy])).to.deep.equal([
      ['b', 'low_trust', 10],
    ]);
    expect(partyStanding([member('a', 100), member('b', 91)]).warnings).to.deep.equal([]);
    // Two low members: each is measured against the lowest of the others, so neither lowers it alone.
    expect(partyStanding([member('a', 100), member('b', 50), member('c', 52)]).warnings).to.deep.equal([]);
    expect(partyStanding([member('a', 40)])).to.deep.equal({
      trustScore: 40,
      lowPriority: false,
      canQueue: true,
      warnings: [],
    });
    expect(partyStanding([]).trustScore).to.equal(null);
  });

  it("names the longest-lasting sanction, a member's warnings in one order, and lets a chat restriction alone", () => {
    const later = new Date('2030-01-01T00:00:00Z');
    const sooner = new Date('2029-01-01T00:00:00Z');
    const s = partyStanding([
      member('alpha', 100),
      member('b', 60, {
        evasionSuspected: true,
        activeSanctions: [
          { id: 'mm-soon', type: 'matchmaking_restriction', expiresAt: sooner, matchesLeft: null },
          { id: 'mm-matches', type: 'matchmaking_restriction', expiresAt: null, matchesLeft: 1 },
          { id: 'ban-soon', type: 'temporary_ban', expiresAt: sooner, matchesLeft: null },
          { id: 'ban-late', type: 'temporary_ban', expiresAt: later, matchesLeft: null },
        ],
      }),
      member('charlie', 100, {
        activeSanctions: [{ id: 'chat', type: 'chat_restriction', expiresAt: later, matchesLeft: null }],
      }),
    ]);
    expect(s.warnings.map((w) => [w.serviceId, w.code, w.sanctionId ?? w.lowersBy ?? null])).to.deep.equal([
      ['b', 'banned', 'ban-late'],
      ['b', 'matchmaking_restriction', 'mm-matches'],
      ['b', 'low_trust', 40],
      ['b', 'evasion_suspected', null],
    ]);
    expect(s.warnings[1]!.message).to.contain('1 more finished match:');
    expect(s).to.include({ lowPriority: true, canQueue: false, trustScore: 60 });
    // Messages name only the member they are about.
    for (const w of s.warnings) expect(w.message).to.not.match(/alpha|charlie/);
  });
});
