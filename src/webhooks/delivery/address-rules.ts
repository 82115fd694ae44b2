/**
 * Which IP addresses a webhook may never reach (the SSRF guard's address half; destination.ts
 * is the URL half). Anything that is not ordinary public unicast is refused: loopback, private,
 * link-local, carrier-grade NAT, multicast, cloud metadata, unspecified, reserved and
 * documentation ranges, for IPv4 and IPv6. An IPv6 address that embeds an IPv4 one
 * (IPv4-mapped, NAT64, 6to4) is judged by the IPv4 address it reaches.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';

/** Each refused range with the reason a refusal gives. */
const IPV4_RANGES: readonly [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const IPV6_RANGES: readonly [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'reserved'],
  ['100::', 64, 'reserved'],
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'private'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'link-local'],
  ['ff00::', 8, 'multicast'],
];

/** Cloud providers' metadata services, named in refusals because they are what SSRF aims at. */
const METADATA = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254']);

function blockList(ranges: readonly [string, number, string][], type: 'ipv4' | 'ipv6') {
  return ranges.map(([network, prefix, reason]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, type);
    return { list, reason };
  });
}

const V4 = blockList(IPV4_RANGES, 'ipv4');
const GLOBAL_UNICAST = new BlockList();
GLOBAL_UNICAST.addSubnet('2000::', 3, 'ipv6');
const V6 = blockList(IPV6_RANGES, 'ipv6');

/** The 16 bytes of an IPv6 address in any of its written forms. */
function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase().split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = tail === undefined ? 0 : 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array<string>(missing).fill('0'), ...tailGroups].map((g) => parseInt(g, 16));
  return groups.flatMap((g) => [g >> 8, g & 0xff]);
}

/** The IPv4 address an IPv6 one delivers to, if it embeds one. */
function embeddedIpv4(address: string): string | undefined {
  const b = ipv6Bytes(address);
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const dotted = (at: number) => b.slice(at, at + 4).join('.');
  // ::ffff:a.b.c.d (IPv4-mapped); the deprecated IPv4-compatible ::a.b.c.d is refused whole (::/96).
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return dotted(12);
  // 64:ff9b::a.b.c.d (NAT64, RFC 6052) and 64:ff9b:1::/48 (local-use NAT64).
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) return dotted(12);
  // 2002:aabb:ccdd::/48 (6to4) carries a.b.c.d in its second and third groups.
  if (b[0] === 0x20 && b[1] === 0x02) return dotted(2);
  return undefined;
}

/**
 * Why the address may not be reached (`loopback`, `cloud metadata`, …), or undefined when it is
 * an ordinary public address. Text that is not an IP address is refused too.
 */
export function forbiddenReason(address: string): string | undefined {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  if (isIPv4(bare)) {
    if (METADATA.has(bare)) return 'cloud metadata';
    return V4.find(({ list }) => list.check(bare, 'ipv4'))?.reason;
  }
  if (!isIPv6(bare)) return 'not an IP address';
  const unzoned = bare.split('%')[0]!;
  if (METADATA.has(unzoned.toLowerCase())) return 'cloud metadata';
  const ipv4 = embeddedIpv4(unzoned);
  if (ipv4 !== undefined) return forbiddenReason(ipv4);
  const reason = V6.find(({ list }) => list.check(unzoned, 'ipv6'))?.reason;
  // Only global unicast (2000::/3) reaches the public internet; the rest is reserved or special.
  return reason ?? (GLOBAL_UNICAST.check(unzoned, 'ipv6') ? undefined : 'reserved');
}
