import fs from 'node:fs';
import { expect } from 'chai';
import {
  ipPrefix,
  linkStrength,
  normalizeSignal,
  SIGNAL_KINDS,
  SIGNAL_RULES,
  signalDigest,
  signalKeysFrom,
} from '../../../../common/domain/signals.js';

describe('signals (issue 53): normal forms, keyed hashes and link strength', () => {
  it('keeps an IPv4 address as its /24 and an IPv6 address as its /48, and refuses what is not an address', () => {
    expect(ipPrefix('203.0.113.77')).to.equal('203.0.113.0/24');
    expect(ipPrefix('::ffff:203.0.113.77')).to.equal('203.0.113.0/24');
    expect(ipPrefix('2001:db8:abcd:12::1')).to.equal('2001:db8:abcd::/48');
    expect(ipPrefix('2001:DB8:ABCD:0012:0000:0000:0000:0001')).to.equal('2001:db8:abcd::/48');
    expect(ipPrefix('2001:db8::1')).to.equal('2001:db8:0::/48');
    expect(ipPrefix('::1')).to.equal('0:0:0::/48');
    for (const bad of ['300.1.2.3', '1.2.3', 'example.com', '', '2001:db8:::1'])
      expect(ipPrefix(bad), bad).to.equal(undefined);
  });

  it('normalises each kind so the same thing sent two ways is one value, and refuses a malformed one', () => {
    expect(normalizeSignal('email', ' Alice@Example.COM ')).to.equal('alice@example.com');
    expect(normalizeSignal('phone', '+44 (20) 7946-0958')).to.equal('+442079460958');
    expect(normalizeSignal('platform_account', 'Steam:76561198000000000')).to.equal(
      'steam:76561198000000000',
    );
    expect(normalizeSignal('hardware_id', 'ABC-123')).to.equal(normalizeSignal('hardware_id', 'abc-123'));
    expect(normalizeSignal('phone', '12345')).to.equal(undefined);
    expect(normalizeSignal('email', 'no-at-sign')).to.equal(undefined);
    expect(normalizeSignal('platform_account', 'no-colon')).to.equal(undefined);
    expect(normalizeSignal('hardware_id', 'has space')).to.equal(undefined);
  });

  it("hashes per studio and key: one device sent by two studios is two values; a key's id names it, never it", () => {
    const key = Buffer.from('k'.repeat(32));
    const a = signalDigest(key, 'studio-a', 'hardware_id', 'abc');
    expect(a).to.have.length(32);
    expect(a.equals(signalDigest(key, 'studio-b', 'hardware_id', 'abc'))).to.equal(false);
    expect(a.equals(signalDigest(key, 'studio-a', 'install_id', 'abc'))).to.equal(false);
    expect(a.equals(signalDigest(Buffer.from('j'.repeat(32)), 'studio-a', 'hardware_id', 'abc'))).to.equal(
      false,
    );
    const derived = signalKeysFrom(undefined, [], 'pepper-0123456789abcdef0123456789abcdef');
    expect(derived.current.id).to.have.length(8);
    expect(derived.current.key.toString('utf8')).not.to.contain('pepper');
    const rotated = signalKeysFrom('new-key-'.repeat(4), ['old-key-'.repeat(4)], 'p');
    expect(rotated.previous.map((k) => k.id)).to.have.length(1);
    expect(rotated.previous[0]!.id).not.to.equal(rotated.current.id);
  });

  it('a link is as strong as the kinds shared, each counted once: a console 0.9, a console and a home 0.93, a network 0.3', () => {
    expect(linkStrength(['hardware_id'])).to.equal(0.9);
    expect(linkStrength(['hardware_id', 'ip_address'])).to.equal(0.93);
    expect(linkStrength(['ip_address', 'ip_address'])).to.equal(0.3);
    expect(linkStrength(['install_id'])).to.equal(0.7);
  });

  it("docs/linked-accounts.md's table states every kind's weight, cap and retention as the code has them", () => {
    const doc = fs.readFileSync('docs/linked-accounts.md', 'utf8');
    const rows = new Map<string, string[]>();
    for (const line of doc.split('\n')) {
      const m = /^\|\s*`([a-z_]+)`\s*\|\s*([\d.]+)\s*\|\s*(\d+)\s*\|\s*(\d+) days\s*\|$/.exec(line);
      if (m) rows.set(m[1]!, [m[2]!, m[3]!, m[4]!]);
    }
    expect([...rows.keys()]).to.deep.equal([...SIGNAL_KINDS]);
    for (const k of SIGNAL_KINDS)
      expect(rows.get(k), k).to.deep.equal([
        String(SIGNAL_RULES[k].weight),
        String(SIGNAL_RULES[k].cap),
        String(SIGNAL_RULES[k].retentionDays),
      ]);
  });
});
