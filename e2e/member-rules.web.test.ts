/**
 * What Settings → Members offers to whom (web/src/settings/team/member-rules.ts), without a
 * browser: the same rules the server keeps (only owners touch owners, the last owner stays), so
 * the page never offers a change the server refuses. The module is the app's own TypeScript,
 * loaded through Vite's module runner (support/web-module.ts).
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Role } from '../src/contract/enums.js';
import { importWebModule } from './support/web-module.js';

interface MemberLike {
  id: string;
  role: Role;
}
interface MemberRules {
  managesTeam(role: Role | undefined): boolean;
  permissionsFor(
    actor: { id: string; role: Role | undefined },
    member: MemberLike,
    members: readonly MemberLike[],
  ): { roles: Role[]; canRemove: boolean; fixedBecause: string | null };
  rolesGivenBy(role: Role | undefined): Role[];
  roleWithArticle(role: Role): string;
}

describe('Settings → Members offers only what the server allows', () => {
  let rules: MemberRules;
  before(async () => {
    rules = await importWebModule<MemberRules>('src/settings/team/member-rules.ts');
  });

  const ada: MemberLike = { id: 'ada', role: 'owner' };
  const cy: MemberLike = { id: 'cy', role: 'admin' };
  const ben: MemberLike = { id: 'ben', role: 'member' };
  const team = [ada, cy, ben];

  test('a plain member changes nobody and invites nobody', () => {
    assert.equal(rules.managesTeam('member'), false);
    assert.deepEqual(rules.rolesGivenBy('member'), []);
    for (const member of team) {
      assert.deepEqual(rules.permissionsFor(ben, member, team), { roles: [], canRemove: false, fixedBecause: null });
    }
  });

  test('an admin changes admins and members, never to owner, and cannot touch an owner', () => {
    assert.deepEqual(rules.rolesGivenBy('admin'), ['admin', 'member']);
    assert.deepEqual(rules.permissionsFor(cy, ben, team), {
      roles: ['admin', 'member'],
      canRemove: true,
      fixedBecause: null,
    });
    const owner = rules.permissionsFor(cy, ada, team);
    assert.deepEqual(owner.roles, []);
    assert.equal(owner.canRemove, false);
    assert.equal(owner.fixedBecause, 'Only an owner can change an owner.');
  });

  test('an owner gives any role; the last owner can be neither demoted nor removed', () => {
    assert.deepEqual(rules.rolesGivenBy('owner'), ['owner', 'admin', 'member']);
    assert.deepEqual(rules.permissionsFor(ada, cy, team).roles, ['owner', 'admin', 'member']);
    const last = rules.permissionsFor(ada, ada, team);
    assert.deepEqual([last.roles, last.canRemove], [[], false]);
    assert.match(last.fixedBecause ?? '', /last owner/);
    // With a second owner, either may be demoted (removing oneself is left to someone else).
    const two = [ada, { id: 'dee', role: 'owner' as Role }, ben];
    assert.deepEqual(rules.permissionsFor(ada, ada, two), {
      roles: ['owner', 'admin', 'member'],
      canRemove: false,
      fixedBecause: null,
    });
    assert.equal(rules.permissionsFor(ada, two[1]!, two).canRemove, true);
  });

  test('roles read with their article', () => {
    assert.deepEqual(
      ['owner', 'admin', 'member'].map((r) => rules.roleWithArticle(r as Role)),
      ['an owner', 'an admin', 'a member'],
    );
  });
});
