/**
 * `hedgerow admin roles …` and `hedgerow admin access …`: the organization's roles, their members,
 * and its resource access levels (docs/compatibility.md#role-based-access), in the default (first)
 * organization, as the `projects create` command does. Same store and rules as the HTTP API
 * (src/store/rbac-store.ts), except that `roles create --level` may choose the role's level (the
 * API always takes the organization's).
 */
import { out } from './admin-actions.js';
import type { Command } from 'commander';
import { ACCESS_LEVEL, accessLevelName, isResource, parseAccessLevel, RESOURCES, type AccessLevel } from '../auth/access-level.js';
import type { AuthStore, Organization, User } from '../store/auth-store.js';
import type { StoreDatabases } from '../store/open-store.js';
import { RbacStore, type Role } from '../store/rbac-store.js';
import { print, printTable, withStore, type Opts } from './admin-helpers.js';
import { fail } from './exit-codes.js';

interface Ctx {
  auth: AuthStore;
  rbac: RbacStore;
  org: Organization;
}

export function addRbacCommands(admin: Command): void {
  const roles = admin.command('roles').description('roles of the organization and their members');
  withRbac(
    roles.command('list').description('list roles').option('--json', 'print JSON'),
    (c, o) =>
      printTable(
        o,
        c.rbac.roles(c.org.id).map((r) => roleSummary(c, r)),
        [
          ['id', (r) => r.id],
          ['flag access', (r) => levelText(r.feature_flags_access_level)],
          ['members', (r) => r.members.length],
          ['name', (r) => r.name],
        ],
      ),
    'reads',
  );
  withRbac(
    roles
      .command('create')
      .description("create a role (its flag access level defaults to the organization's feature flags level)")
      .requiredOption('--name <name>', 'role name (unique in the organization, ignoring case)')
      .option('--level <level>', 'feature flags access level: view (or viewer, 21) can only view, edit (or editor, 37) can always edit')
      .option('--created-by <email-or-id>', 'user recorded as the creator')
      .option('--json', 'print JSON'),
    (c, o) => {
      const name = String(o.name).trim();
      if (name === '' || [...name].length > 200) fail('--name must be 1 to 200 characters');
      const creator = o.createdBy === undefined ? undefined : userRef(c, String(o.createdBy));
      const role = c.rbac.createRole({
        organizationId: c.org.id,
        name,
        createdBy: creator?.id ?? null,
        ...(o.level !== undefined ? { featureFlagsAccessLevel: level(o.level) } : {}),
      });
      print(
        o,
        roleSummary(c, role),
        (r) => `created role ${r.id} "${r.name}" (flag access level ${levelText(r.feature_flags_access_level)})`,
      );
    },
  );
  withRbac(
    roles
      .command('delete')
      .description('delete a role with its memberships and flag role access')
      .requiredOption('--role <id-or-name>', 'the role'),
    (c, o) => {
      const role = roleRef(c, String(o.role));
      c.rbac.deleteRole(c.org.id, role.id);
      out(`deleted role ${role.id} "${role.name}"\n`);
    },
  );
  withRbac(
    roles
      .command('add-member')
      .description('add a user to a role')
      .requiredOption('--role <id-or-name>', 'the role')
      .requiredOption('--user <email-or-id>', 'the user')
      .option('--json', 'print JSON'),
    (c, o) => {
      const role = roleRef(c, String(o.role));
      const user = userRef(c, String(o.user));
      const m = c.rbac.addMember(role.id, user.id);
      print(o, m, (x) => `added ${user.email} to role "${role.name}" (membership ${x.id})`);
    },
  );
  withRbac(
    roles
      .command('remove-member')
      .description('remove a user from a role')
      .requiredOption('--role <id-or-name>', 'the role')
      .requiredOption('--user <email-or-id>', 'the user'),
    (c, o) => {
      const role = roleRef(c, String(o.role));
      const user = userRef(c, String(o.user));
      if (!c.rbac.removeMember(role.id, user.id)) fail(`${user.email} is not in role "${role.name}"`);
      out(`removed ${user.email} from role "${role.name}"\n`);
    },
  );
  withRbac(
    roles
      .command('members')
      .description("list a role's members")
      .requiredOption('--role <id-or-name>', 'the role')
      .option('--json', 'print JSON'),
    (c, o) => {
      const role = roleRef(c, String(o.role));
      const members = c.rbac.memberships(role.id).map((m) => ({ ...m, email: c.auth.user(m.user_id)?.email ?? null }));
      printTable(o, members, [
        ['membership', (m) => m.id],
        ['user', (m) => m.email ?? `user ${m.user_id}`],
        ['joined', (m) => m.joined_at],
      ]);
    },
    'reads',
  );

  const access = admin
    .command('access')
    .description('organization resource access: the default level for everyone (no row means 37, can always edit)');
  withRbac(
    access.command('list').description('list resource access rows').option('--json', 'print JSON'),
    (c, o) =>
      printTable(o, c.rbac.resourceAccessList(c.org.id), [
        ['id', (r) => r.id],
        ['level', (r) => levelText(r.access_level)],
        ['resource', (r) => r.resource],
      ]),
    'reads',
  );
  withRbac(
    access
      .command('set')
      .description('set the level of a resource (creates or updates its row)')
      .requiredOption('--resource <name>', `one of: ${RESOURCES.map((r) => `"${r}"`).join(', ')}`)
      .requiredOption('--level <level>', 'view (or viewer, 21) can only view, edit (or editor, 37) can always edit')
      .option('--json', 'print JSON'),
    (c, o) => {
      const resource = String(o.resource);
      if (!isResource(resource)) fail(`--resource must be one of: ${RESOURCES.join(', ')}`);
      const row = c.rbac.setResourceAccess({
        organizationId: c.org.id,
        resource,
        accessLevel: level(o.level),
        createdBy: null,
      });
      print(o, row, (r) => `${r.resource}: access level ${levelText(r.access_level)}`);
    },
  );
  withRbac(
    access
      .command('clear')
      .description('delete the row of a resource (back to 37, can always edit)')
      .requiredOption('--resource <name>', 'the resource'),
    (c, o) => {
      const resource = String(o.resource);
      const row = isResource(resource) ? c.rbac.resourceAccessFor(c.org.id, resource) : undefined;
      if (!row) fail(`no resource access row for "${resource}"`);
      c.rbac.deleteResourceAccess(c.org.id, row.id);
      out(`${resource}: access level ${levelText(ACCESS_LEVEL.CAN_ALWAYS_EDIT)} (default)\n`);
    },
  );
}

function withRbac(cmd: Command, run: (ctx: Ctx, opts: Opts) => void, access: 'reads' | 'writes' = 'writes'): void {
  withStore(
    cmd,
    (auth: AuthStore, opts: Opts, dbs: StoreDatabases) => {
      const org = auth.organizations()[0] ?? fail('no organization: start the daemon once first');
      run({ auth, rbac: new RbacStore(dbs), org }, opts);
    },
    [],
    access,
  );
}

function roleSummary(c: Ctx, role: Role) {
  const { seq: _seq, ...rest } = role;
  return { ...rest, members: c.rbac.memberships(role.id).map((m) => m.user_id) };
}

/** A role of the organization by id, else by name (ignoring case). */
function roleRef(c: Ctx, ref: string): Role {
  return c.rbac.roleInOrganization(c.org.id, ref) ?? c.rbac.roleByName(c.org.id, ref) ?? fail(`no role ${ref}`);
}

/** A user of the organization by id or email. */
function userRef(c: Ctx, ref: string): User {
  const user = /^\d+$/.test(ref) ? c.auth.user(Number(ref)) : c.auth.userByEmail(ref);
  if (!user || user.organization_id !== c.org.id) fail(`no user ${ref} in the organization`);
  return user;
}

function level(v: unknown): AccessLevel {
  return (
    parseAccessLevel(String(v)) ?? fail('--level must be view (or viewer, 21: can only view) or edit (or editor, 37: can always edit)')
  );
}

/** `view (21)`, `edit (37)`. */
function levelText(level: number): string {
  return `${accessLevelName(level)} (${level})`;
}
