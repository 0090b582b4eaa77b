import { expect } from 'vitest';
import { HedgerowError, type PostHogErrorBody } from '../../src/errors.js';

/** The PostHog error body of the 400 that `f` must throw (any other outcome fails the test). */
export function validationErrorOf(f: () => unknown): PostHogErrorBody {
  try {
    f();
  } catch (err) {
    if (err instanceof HedgerowError) {
      expect(err.status).toBe(400);
      return err.toBody();
    }
    throw err;
  }
  throw new Error('expected a validation error');
}
