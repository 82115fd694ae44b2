/**
 * The SSRF guard's address rules, range by range, in IPv4, IPv6 and IPv4-mapped IPv6 (and the
 * other ways IPv6 embeds IPv4): every refused range refuses its first and last address, and the
 * public addresses just outside it pass.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forbiddenReason } from './address-rules.js';

/** [range, an address inside, the last address inside, the reason]. */
const IPV4: [string, string, string, string][] = [
  ['0.0.0.0/8 unspecified', '0.0.0.0', '0.255.255.255', 'unspecified'],
  ['10.0.0.0/8 private', '10.0.0.1', '10.255.255.255', 'private'],
  ['100.64.0.0/10 carrier-grade NAT', '100.64.0.0', '100.127.255.255', 'carrier-grade NAT'],
  ['127.0.0.0/8 loopback', '127.0.0.1', '127.255.255.254', 'loopback'],
  ['169.254.0.0/16 link-local', '169.254.0.1', '169.254.255.255', 'link-local'],
  ['172.16.0.0/12 private', '172.16.0.0', '172.31.255.255', 'private'],
  ['192.168.0.0/16 private', '192.168.0.1', '192.168.255.255', 'private'],
  ['224.0.0.0/4 multicast', '224.0.0.1', '239.255.255.255', 'multicast'],
  ['240.0.0.0/4 reserved and broadcast', '240.0.0.1', '255.255.255.255', 'reserved'],
  ['192.0.2.0/24 documentation', '192.0.2.1', '192.0.2.255', 'documentation'],
  ['198.18.0.0/15 benchmarking', '198.18.0.1', '198.19.255.255', 'reserved'],
];

const PUBLIC_V4 = [
  '1.1.1.1',
  '8.8.8.8',
  '9.255.255.255',
  '11.0.0.0',
  '100.63.255.255',
  '100.128.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '192.167.255.255',
  '223.255.255.255',
];

/** IPv4 written inside IPv6 in each way that reaches the IPv4 address. */
const embed = (v4: string) => {
  const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
  const hex = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  return {
    'IPv4-mapped (dotted)': `::ffff:${v4}`,
    'IPv4-mapped (hex)': `::ffff:${hex}`,
    'IPv4-mapped (bracketed, long form)': `[0:0:0:0:0:ffff:${v4}]`,
    NAT64: `64:ff9b::${v4}`,
    '6to4': `2002:${hex}::1`,
  };
};

for (const [range, first, last, reason] of IPV4) {
  test(`IPv4 ${range}: refused as ${reason}, and so is each IPv6 form that embeds it`, () => {
    for (const address of [first, last]) {
      assert.equal(forbiddenReason(address), reason, address);
      for (const [form, written] of Object.entries(embed(address))) {
        assert.equal(forbiddenReason(written), reason, `${form} ${written}`);
      }
    }
  });
}

test('cloud metadata services are refused by name: 169.254.169.254, fd00:ec2::254, 100.100.100.200, and mapped', () => {
  for (const address of [
    '169.254.169.254',
    'fd00:ec2::254',
    'FD00:EC2::254',
    '100.100.100.200',
    '::ffff:169.254.169.254',
  ]) {
    assert.equal(forbiddenReason(address), 'cloud metadata', address);
  }
});

test('IPv6 ranges are refused: unspecified, loopback, IPv4-compatible, unique local, link-local, site-local, multicast, documentation, discard, anything outside global unicast', () => {
  const cases: [string, string][] = [
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::7f00:1', 'reserved'],
    ['::8.8.8.8', 'reserved'],
    ['fc00::1', 'private'],
    ['fdff:ffff::1', 'private'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['ff0e::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['100::1', 'reserved'],
    ['fbff::1', 'reserved'],
    ['fe7f::1', 'reserved'],
    ['4000::1', 'reserved'],
  ];
  for (const [address, reason] of cases) assert.equal(forbiddenReason(address), reason, address);
});

test('public addresses pass, IPv4 and IPv6, also when mapped, NAT64 or 6to4 to a public IPv4', () => {
  for (const address of PUBLIC_V4) {
    assert.equal(forbiddenReason(address), undefined, address);
    for (const written of Object.values(embed(address))) assert.equal(forbiddenReason(written), undefined, written);
  }
  for (const address of ['2606:4700:4700::1111', '2001:4860:4860::8888', '2a00:1450:4001::1', '3fff:ffff::1']) {
    assert.equal(forbiddenReason(address), undefined, address);
  }
});

test('text that is not an IP address is refused', () => {
  for (const text of ['', 'localhost', '1.2.3', '::g', '999.1.1.1'])
    assert.equal(forbiddenReason(text), 'not an IP address', text);
});
