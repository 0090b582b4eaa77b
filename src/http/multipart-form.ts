/**
 * `multipart/form-data` request bodies, as PostHog's REST API (DRF's MultiPartParser over Django's)
 * accepts them: a cohort's `csv` upload comes this way. The backend has already read the body and
 * held it to the daemon's body size cap; @fastify/busboy splits it into parts.
 *
 * Django's rules are kept: a part is a file when its Content-Disposition has a `filename` (a file
 * whose name is empty is dropped), anything else is a text field; when a name repeats, the last
 * part wins (`QueryDict.get`); an empty body is an empty form.
 */

import { Busboy } from '@fastify/busboy';
import { catalogueError } from '../errors.js';
import type { HttpRequest } from './types.js';

interface UploadedFile {
  /** Without any directory part, as Django keeps it. */
  readonly filename: string;
  readonly data: Buffer;
}

export interface MultipartForm {
  readonly fields: ReadonlyMap<string, string>;
  readonly files: ReadonlyMap<string, UploadedFile>;
}

/** Django's defaults for DATA_UPLOAD_MAX_NUMBER_FIELDS and DATA_UPLOAD_MAX_NUMBER_FILES. */
const MAX_FIELDS = 1000;
const MAX_FILES = 100;

export function isMultipart(http: HttpRequest): boolean {
  return /^multipart\/form-data\s*(;|$)/i.test(http.header('content-type').trim());
}

/** Splits a multipart body; a malformed one is `HR_MULTIPART_PARSE` (400, `parse_error`). */
export function readMultipartForm(http: HttpRequest): Promise<MultipartForm> {
  const fields = new Map<string, string>();
  const files = new Map<string, UploadedFile>();
  const form: MultipartForm = { fields, files };
  if (http.body.byteLength === 0) return Promise.resolve(form);
  return new Promise((resolve, reject) => {
    const fail = (reason: string) => reject(catalogueError('HR_MULTIPART_PARSE', { reason }));
    let parser;
    try {
      parser = Busboy({
        headers: { 'content-type': http.header('content-type') },
        isPartAFile: (_name, _type, filename) => filename !== undefined,
        // The body is already within the cap: no text field needs a cap of its own.
        limits: { fields: MAX_FIELDS, files: MAX_FILES, fieldSize: http.body.byteLength },
      });
    } catch {
      // The only throw for a multipart content type: it names no boundary (Django's wording).
      fail('Invalid boundary in multipart: None');
      return;
    }
    parser.on('field', (name: string | undefined, value: string) => {
      if (name !== undefined) fields.set(name, value);
    });
    parser.on('file', (name: string | undefined, stream, filename: string) => {
      const chunks: Buffer[] = [];
      // A body cut inside a file part errors the file's stream as well as the parser: without
      // this listener that 'error' would be unhandled and end the process.
      stream.on('error', (err: unknown) => fail(err instanceof Error ? err.message : String(err)));
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (name !== undefined && filename !== '') files.set(name, { filename, data: Buffer.concat(chunks) });
      });
    });
    parser.on('fieldsLimit', () => fail(`more than ${MAX_FIELDS} fields`));
    parser.on('filesLimit', () => fail(`more than ${MAX_FILES} files`));
    parser.on('error', (err: unknown) => fail(err instanceof Error ? err.message : String(err)));
    parser.on('finish', () => resolve(form));
    try {
      parser.end(Buffer.from(http.body.buffer, http.body.byteOffset, http.body.byteLength));
    } catch (err) {
      fail(err instanceof Error ? err.message : String(err));
    }
  });
}

/**
 * The request with its text fields as an `application/x-www-form-urlencoded` body: the management
 * API then authenticates it and reads its fields exactly as it does a form post.
 */
export function withFormBody(http: HttpRequest, fields: ReadonlyMap<string, string>): HttpRequest {
  const body = Buffer.from(new URLSearchParams([...fields]).toString(), 'utf8');
  return {
    method: http.method,
    path: http.path,
    query: http.query,
    ip: http.ip,
    body,
    receivedAt: http.receivedAt,
    header: (name) => (name === 'content-type' ? 'application/x-www-form-urlencoded' : http.header(name)),
  };
}
