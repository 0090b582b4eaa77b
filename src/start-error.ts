/**
 * A known reason the daemon cannot start, or a command cannot open what it needs: the port is
 * taken, another daemon serves the data directory, the store is damaged or newer. The operator
 * fixes these, so the command line reports one `hedgerow: <message>` line and exits 1 (see
 * docs/operations.md#exit-codes); a stack is kept for what is not one of these (a bug).
 */
export class StartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartError';
  }
}
