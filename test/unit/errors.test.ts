/** The error catalogue's message templates (src/errors.ts). */
import { describe, expect, it } from 'vitest';
import { catalogueError, ERRORS, fillTemplate, HedgerowError } from '../../src/errors.js';

describe('catalogue templates', () => {
  it('fill every placeholder, in one pass', () => {
    for (const [code, e] of Object.entries(ERRORS)) {
      const names = [...e.message.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
      const filled = fillTemplate(e.message, Object.fromEntries(names.map((n) => [n, 'x'])));
      expect(filled, code).not.toMatch(/\{\w+\}/);
    }
    expect(fillTemplate('a {b} c', { b: '{b}' })).toBe('a {b} c');
    expect(fillTemplate('{"type": "AND"} {n}', { n: 1 })).toBe('{"type": "AND"} 1');
  });

  it('give the body PostHog sends', () => {
    expect(catalogueError('HR_FIELD_DOES_NOT_EXIST', { pk_value: 'r1' }, 'role_id').toBody()).toEqual({
      type: 'validation_error',
      code: 'does_not_exist',
      detail: 'Invalid pk "r1" - object does not exist.',
      attr: 'role_id',
    });
  });

  it('are the only details: the compiler refuses a hand-written one', () => {
    // @ts-expect-error a fixed code's detail is its catalogue message
    expect(new HedgerowError('HR_NOT_FOUND', 'gone').message).toBe('gone');
    // @ts-expect-error a template code's error comes from catalogueError
    expect(new HedgerowError('HR_PARSE_FAILED', 'failed to parse request: x').status).toBe(400);
    expect(new HedgerowError('HR_FIELD_REQUIRED', undefined, 'key').toBody()).toEqual({
      type: 'validation_error',
      code: 'required',
      detail: 'This field is required.',
      attr: 'key',
    });
  });
});
