/**
 * Why the HTTP front end could not listen, in the same words whichever backend tried: Node's own
 * text (`listen EADDRINUSE: address already in use 127.0.0.1:8000`) names a syscall rather than
 * what to change.
 */
import { StartError } from '../start-error.js';

/** A StartError saying why `host:port` could not be listened on. */
export function listenError(host: string, port: number, err: unknown): StartError {
  return new StartError(`cannot listen on ${host}:${port}: ${reason(port, err)}`);
}

function reason(port: number, err: unknown): string {
  switch ((err as NodeJS.ErrnoException | null)?.code) {
    case 'EADDRINUSE':
      return 'address in use';
    case 'EACCES':
      return port < 1024 ? 'permission denied (ports below 1024 need privileges)' : 'permission denied';
    case 'EADDRNOTAVAIL':
      return 'no such address on this machine';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'no such host';
    default:
      return err instanceof Error ? err.message : String(err);
  }
}
