/** `admin key …`, `admin list-member …` and `admin list share`: what gives a member access (API keys, list memberships). */
import { KEY_SCOPES, type CreateKeyBody } from '../../contract/keys.js';
import * as keys from '../../keys/keys.service.js';
import * as lists from '../../lists/lists.service.js';
import {
  AdminError,
  given,
  nonEmpty,
  ORG_AND_USER,
  requireUser,
  teamAndUser,
  text,
  uuidOption,
  type CommandGroup,
  type Options,
} from './command.js';

const EXPIRY_OPTIONS = { expiresAt: '--expires-at', expiresInDays: '--expires-in-days' };
const LIST_AND_USER = { list: { type: 'string' }, user: { type: 'string' } } as const;

/** `--name a,b` as ["a", "b"] (spaces around commas ignored), or undefined when not given. */
function commaSeparated(o: Options, name: string): string[] | undefined {
  return given(o, name)
    ?.split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

function presetOption(o: Options): CreateKeyBody['preset'] {
  const preset = given(o, 'preset');
  if (preset === undefined || preset === 'readOnly' || preset === 'agent') return preset;
  throw new AdminError(`--preset must be readOnly or agent (got "${preset}")`);
}

function listIdOf(id: string): number {
  if (!/^\d+$/.test(id)) throw new AdminError(`--lists takes list ids, as printed, separated by commas (got "${id}")`);
  return Number(id);
}

export const accessCommands: CommandGroup = {
  title: 'API keys, list memberships and shared lists',
  commands: {
    'key create': {
      summary:
        'a key for a member of the team; the secret is shown only here ' +
        '(--expires-at takes an ISO date-time, e.g. 2027-01-31T00:00:00Z; without --scopes or --preset the key ' +
        `has its user's full power; --scopes takes a comma-separated set of ${KEY_SCOPES.join(', ')}; ` +
        '--lists limits it to those of the user\'s lists, by id) → {"id", "key", "expiresAt"}',
      usage:
        '--org TEAM_ID --user USER_ID [--name LABEL] [--expires-in-days N | --expires-at ISO_DATE_TIME] ' +
        '[--scopes SCOPE,… | --preset readOnly|agent] [--lists LIST_ID,…]',
      options: {
        ...ORG_AND_USER,
        name: { type: 'string' },
        'expires-in-days': { type: 'string' },
        'expires-at': { type: 'string' },
        scopes: { type: 'string' },
        preset: { type: 'string' },
        lists: { type: 'string' },
      },
      required: ['org', 'user'],
      async run(store, o) {
        const { org, user } = await teamAndUser(store, o);
        const name = o.name === undefined ? 'admin' : nonEmpty(text(o, 'name'), '--name');
        const expiry = { expiresAt: given(o, 'expires-at'), expiresInDays: given(o, 'expires-in-days') };
        const created = await keys.createKeyFor(
          store,
          {
            teamId: org.id,
            userId: user.id,
            name,
            expiry,
            scopes: commaSeparated(o, 'scopes'),
            preset: presetOption(o),
            listIds: commaSeparated(o, 'lists')?.map((id) => listIdOf(id)),
          },
          EXPIRY_OPTIONS,
        );
        return { id: created.id, key: created.key, expiresAt: created.expiresAt };
      },
    },
    'key list': {
      summary:
        "the user's unrevoked keys in the team (expired ones too), newest first; never a secret → " +
        '{"orgId", "userId", "keys": [{"id", "name", "prefix", "createdAt", "lastUsedAt", "expiresAt", "scopes", "listIds"}]}',
      usage: '--org TEAM_ID --user USER_ID',
      options: ORG_AND_USER,
      required: ['org', 'user'],
      async run(store, o) {
        const { org, user } = await teamAndUser(store, o);
        return { orgId: org.id, userId: user.id, keys: await keys.keysOfMember(store, org.id, user.id) };
      },
    },
    'key revoke': {
      summary: 'the key stops working on the next request → {"revoked": true}',
      usage: '--id KEY_ID',
      options: { id: { type: 'string' } },
      required: ['id'],
      async run(store, o) {
        await keys.revokeKey(store, uuidOption(o, 'id'));
        return { revoked: true };
      },
    },
    'list-member add': {
      summary: 'makes a member of the list\'s team a member of the list → {"listId", "userId"}',
      usage: '--list LIST_ID --user USER_ID',
      options: LIST_AND_USER,
      required: ['list', 'user'],
      async run(store, o) {
        const user = await requireUser(store, uuidOption(o, 'user'));
        const list = await lists.addMemberAsOperator(store, text(o, 'list'), user.id);
        return { listId: list.id, userId: user.id };
      },
    },
    'list-member remove': {
      summary: 'takes the list away from the user, event streams included → {"removed": true}',
      usage: '--list LIST_ID --user USER_ID',
      options: LIST_AND_USER,
      required: ['list', 'user'],
      async run(store, o) {
        const user = await requireUser(store, uuidOption(o, 'user'));
        await lists.removeMemberAsOperator(store, text(o, 'list'), user.id);
        return { removed: true };
      },
    },
    'list share': {
      summary:
        'shares the list with its whole team: every member of the team becomes a member of it, and so does ' +
        'everyone who joins the team later; --off stops adding newcomers (the members stay) ' +
        '→ {"listId", "name", "sharedWithTeam"}',
      usage: '--list LIST_ID [--off]',
      options: { list: { type: 'string' }, off: { type: 'boolean' } },
      required: ['list'],
      async run(store, o) {
        const list = await lists.setSharedAsOperator(store, text(o, 'list'), !o.off);
        return { listId: list.id, name: list.name, sharedWithTeam: list.sharedWithTeam };
      },
    },
  },
};
