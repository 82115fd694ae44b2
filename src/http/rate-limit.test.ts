import assert from 'node:assert/strict';
import { test } from 'node:test';
import { budgetAddress } from './rate-limit.js';

test('per-address budgets count IPv4 as it is and IPv6 by its /64, however it is written', () => {
  assert.equal(budgetAddress('203.0.113.7'), '203.0.113.7');
  assert.equal(budgetAddress('::ffff:203.0.113.7'), '203.0.113.7');
  const sameHost = ['2001:db8:85a3::8a2e:370:7334', '2001:0DB8:85A3:0000:0001:2:3:4', '2001:db8:85a3::%eth0'];
  for (const ip of sameHost) assert.equal(budgetAddress(ip), '2001:db8:85a3:0::/64', ip);
  assert.notEqual(budgetAddress('2001:db8:85a3:1::1'), budgetAddress('2001:db8:85a3:2::1'));
  assert.equal(budgetAddress('::1'), '0:0:0:0::/64');
});
