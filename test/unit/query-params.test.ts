import { describe, expect, it } from 'vitest';
import { QueryParams } from '../../src/http/query-params.js';

describe('QueryParams', () => {
  it("reads a repeated name's last value, as Django's QueryDict does", () => {
    const q = new QueryParams('limit=2&limit=3&search=a');
    expect(q.get('limit')).toBe('3');
    expect(q.get('search')).toBe('a');
    expect(q.get('offset')).toBeNull();
    expect(q.getAll('limit')).toEqual(['2', '3']);
    expect(new QueryParams('flag=').get('flag')).toBe('');
  });
});
