/**
 * What Settings → Members offers to whom (member-rules.ts): the same rules the server keeps (only
 * owners touch owners, the last owner stays), so the page never offers a change the server refuses.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Role } from '@contract/enums';
import { managesTeam, permissionsFor, roleWithArticle, rolesGivenBy } from './member-rules';

type MemberLike = Parameters<typeof permissionsFor>[1];

describe('Settings → Members offers only what the server allows', () => {
  const ada: MemberLike = { id: 'ada', role: 'owner' };
  const cy: MemberLike = { id: 'cy', role: 'admin' };
  const ben: MemberLike = { id: 'ben', role: 'member' };
  const team = [ada, cy, ben];

  test('a plain member changes nobody and invites nobody', () => {
    assert.equal(managesTeam('member'), false);
    assert.deepEqual(rolesGivenBy('member'), []);
    for (const member of team) {
      assert.deepEqual(permissionsFor(ben, member, team), { roles: [], canRemove: false, fixedBecause: null });
    }
  });

  test('an admin changes admins and members, never to owner, and cannot touch an owner', () => {
    assert.deepEqual(rolesGivenBy('admin'), ['admin', 'member']);
    assert.deepEqual(permissionsFor(cy, ben, team), {
      roles: ['admin', 'member'],
      canRemove: true,
      fixedBecause: null,
    });
    const owner = permissionsFor(cy, ada, team);
    assert.deepEqual(owner.roles, []);
    assert.equal(owner.canRemove, false);
    assert.equal(owner.fixedBecause, 'Only an owner can change an owner.');
  });

  test('an owner gives any role; the last owner can be neither demoted nor removed', () => {
    assert.deepEqual(rolesGivenBy('owner'), ['owner', 'admin', 'member']);
    assert.deepEqual(permissionsFor(ada, cy, team).roles, ['owner', 'admin', 'member']);
    const last = permissionsFor(ada, ada, team);
    assert.deepEqual([last.roles, last.canRemove], [[], false]);
    assert.match(last.fixedBecause ?? '', /last owner/);
    // With a second owner, either may be demoted (removing oneself is left to someone else).
    const two = [ada, { id: 'dee', role: 'owner' as Role }, ben];
    assert.deepEqual(permissionsFor(ada, ada, two), {
      roles: ['owner', 'admin', 'member'],
      canRemove: false,
      fixedBecause: null,
    });
    assert.equal(permissionsFor(ada, two[1]!, two).canRemove, true);
  });

  test('roles read with their article', () => {
    assert.deepEqual(
      ['owner', 'admin', 'member'].map((r) => roleWithArticle(r as Role)),
      ['an owner', 'an admin', 'a member'],
    );
  });
});
