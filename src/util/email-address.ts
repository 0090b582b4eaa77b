/**
 * Whether a string is an email address as a user's email is expected to be (the rules of Django's
 * EmailValidator, which PostHog's user model uses, for the common forms): a dot-atom local part
 * of at most 64 ASCII characters, then a domain of at least two labels ending in a top-level name of
 * letters (or `xn--…`), or `localhost`; at most 254 characters in all. Quoted local parts and
 * address literals (`[192.0.2.1]`) are refused.
 */
const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^(?!-)[\p{L}\p{N}-]{1,63}(?<!-)$/u;
const TOP_LEVEL = /^(?:\p{L}{2,63}|xn--[a-z0-9-]{1,59})$/iu;

export function isEmailAddress(text: string): boolean {
  if (text.length > 254) return false;
  const at = text.lastIndexOf('@');
  if (at < 1) return false;
  const local = text.slice(0, at);
  const domain = text.slice(at + 1);
  if (local.length > 64 || !LOCAL.test(local)) return false;
  if (domain === 'localhost') return true;
  const labels = domain.split('.');
  return labels.length >= 2 && labels.every((l) => LABEL.test(l)) && TOP_LEVEL.test(labels[labels.length - 1] ?? '');
}
