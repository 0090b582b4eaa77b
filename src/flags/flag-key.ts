/** A feature flag key as the management API accepts it (PostHog's serializer): 1–400 of `[a-zA-Z0-9_-]`. */
export const FLAG_KEY_FORMAT = /^[a-zA-Z0-9_-]+$/;
export const FLAG_KEY_MAX_LENGTH = 400;

/** Whether any flag could have this key. */
export function isFlagKeyShaped(key: string): boolean {
  return key.length <= FLAG_KEY_MAX_LENGTH && FLAG_KEY_FORMAT.test(key);
}
