/**
 * PostHog's `UserBasicSerializer`: the short user object nested in other resources
 * (`created_by` of roles and flags, `user` of role memberships). Hedgerow keeps no last name,
 * email verification or hedgehog settings, so those print as PostHog's defaults.
 */
import type { User } from '../store/auth-store.js';

export interface BasicUser {
  id: number;
  uuid: string;
  distinct_id: string;
  first_name: string;
  last_name: string;
  email: string;
  is_email_verified: boolean;
  hedgehog_config: null;
}

export function basicUser(user: User): BasicUser {
  return {
    id: user.id,
    uuid: user.uuid,
    distinct_id: user.distinct_id,
    first_name: user.first_name,
    last_name: '',
    email: user.email,
    is_email_verified: false,
    hedgehog_config: null,
  };
}

/** `basicUser` of the user with that id, or null when there is none (deleted, or never set). */
export function basicUserOrNull(lookup: (id: number) => User | undefined, id: number | null): BasicUser | null {
  if (id === null) return null;
  const user = lookup(id);
  return user ? basicUser(user) : null;
}
