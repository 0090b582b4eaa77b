/**
 * The management API's query parameters, read as Django's `QueryDict` reads them (DRF's
 * `request.query_params[name]`): a name given more than once counts with its last value, so
 * `?limit=2&limit=3` lists three.
 */
export class QueryParams extends URLSearchParams {
  override get(name: string): string | null {
    const values = this.getAll(name);
    return values.length === 0 ? null : (values[values.length - 1] as string);
  }
}
