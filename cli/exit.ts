/** Thrown by a verb to end the process with a code after it has printed what it had to say. */
export class CliExit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}
