import { expect } from 'chai';
import { AddressPolicy, isAddressOrCidr } from '../../../common/net/addresses.js';

describe('AddressPolicy', () => {
  const strict = new AddressPolicy();

  const refused: [string, RegExp][] = [
    ['127.0.0.1', /loopback/],
    ['10.1.2.3', /private/],
    ['172.16.0.1', /private/],
    ['192.168.1.1', /private/],
    ['169.254.169.254', /linkLocal/], // cloud metadata
    ['100.64.0.1', /carrierGradeNat/],
    ['0.0.0.0', /unspecified/],
    ['224.0.0.1', /multicast/],
    ['255.255.255.255', /broadcast/],
    ['::1', /loopback/],
    ['fe80::1', /linkLocal/],
    ['fd00::1', /uniqueLocal/],
    ['::ffff:10.0.0.1', /private/], // IPv4-mapped: judged as the IPv4 address it carries
    ['::ffff:127.0.0.1', /loopback/],
    ['64:ff9b::a00:1', /rfc6052/], // NAT64 can embed any IPv4 address
    ['2002:a00:1::', /6to4/],
  ];
  for (const [address, why] of refused)
    it(`refuses ${address}`, () => {
      expect(strict.refusal(address)).to.match(why);
    });

  for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])
    it(`allows the public address ${address}`, () => {
      expect(strict.refusal(address)).to.equal(undefined);
    });

  it('allows exactly what the allow-list names: an address or a CIDR range, nothing next to it', () => {
    const policy = new AddressPolicy(['127.0.0.1', '10.20.0.0/16']);
    expect(policy.refusal('127.0.0.1')).to.equal(undefined);
    expect(policy.refusal('127.0.0.2')).to.match(/loopback/);
    expect(policy.refusal('10.20.5.5')).to.equal(undefined);
    expect(policy.refusal('10.21.0.1')).to.match(/private/);
    expect(policy.refusal('::ffff:127.0.0.1')).to.equal(undefined);
  });

  it('refuses text that is not an address', () => {
    expect(strict.refusal('example.com')).to.match(/not an IP address/);
  });

  it('validates allow-list entries', () => {
    expect(isAddressOrCidr('127.0.0.1')).to.equal(true);
    expect(isAddressOrCidr('10.0.0.0/8')).to.equal(true);
    expect(isAddressOrCidr('fd00::/8')).to.equal(true);
    expect(isAddressOrCidr('localhost')).to.equal(false);
    expect(isAddressOrCidr('10.0.0.0/33')).to.equal(false);
  });
});
