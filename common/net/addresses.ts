import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

export function isAddressOrCidr(text: string): boolean {
  try {
    if (text.includes('/')) ipaddr.parseCIDR(text);
    else ipaddr.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is judged as the IPv4 address it carries. */
function normalise(address: Address): Address {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()
    ? (address as ipaddr.IPv6).toIPv4Address()
    : address;
}

/**
 * Which addresses outbound requests (evidence fetches, webhook deliveries) may reach: public unicast
 * only. Private, loopback, link-local (and so cloud metadata at 169.254.169.254), carrier-grade NAT,
 * multicast, reserved and the IPv6 transition ranges that can embed any IPv4 address are refused,
 * unless an operator lists the address or its range in OUTBOUND_ALLOWLIST (tests use a local server).
 */
export class AddressPolicy {
  private readonly allowed: [Address, number][];

  constructor(allowlist: readonly string[] = []) {
    this.allowed = allowlist.map((entry) => {
      if (entry.includes('/')) return ipaddr.parseCIDR(entry);
      const address = ipaddr.parse(entry);
      return [address, address.kind() === 'ipv4' ? 32 : 128];
    });
  }

  /** Whether the operator listed this address (or its range), private or not. */
  allowsPrivate(text: string): boolean {
    try {
      const address = normalise(ipaddr.parse(text));
      return this.allowed.some(([range, bits]) => {
        const candidate = normalise(range);
        return candidate.kind() === address.kind() && address.match(candidate, bits);
      });
    } catch {
      return false;
    }
  }

  /** Why the address is refused, or undefined when it may be reached. */
  refusal(text: string): string | undefined {
    let address: Address;
    try {
      address = normalise(ipaddr.parse(text));
    } catch {
      return `${text} is not an IP address`;
    }
    if (this.allowsPrivate(text)) return undefined;
    const range = address.range();
    return range === 'unicast' ? undefined : `${text} is a ${range} address`;
  }
}
