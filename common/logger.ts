import { pino, type Logger } from 'pino';
import { logTraceFields, tracingActive } from './tracing/spans.js';

export type { Logger };

/** Paths pino blanks out wherever they appear in a log line: secrets never reach the logs. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.client_secret',
  'req.headers["client-secret"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.client_secret',
  '*.clientSecret',
  '*.password',
  // Authorization codes travel only in a body or query: a blanket '*.code' would also blank the
  // error codes (PostgreSQL's 23505, 40001 ...) that operators need in failure logs.
  'body.code',
  'query.code',
  'req.body.code',
  'req.query.code',
  '*.code_verifier',
  '*.access_token',
  '*.token',
  '*.secret',
  'client_secret',
  'clientSecret',
  'password',
  'access_token',
];

/**
 * Standard output, written asynchronously (issue 40): a line is handed to the kernel in the
 * background, and lines written while a write is under way go together in the next one, instead of a
 * blocking write(2) a line (under load, a request each). pino flushes what is still buffered when the
 * process exits, by process.exit or a crash; only a SIGKILL loses the lines not yet written. One stream
 * for every logger of the process.
 */
let stdout: pino.DestinationStream | undefined;
function standardOutput(): pino.DestinationStream {
  return (stdout ??= pino.destination({ dest: 1, sync: false }));
}

export function createLogger(level: string, name: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      name,
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Tracing on: each line written inside a span (a request's, a job's) names its trace.
      ...(tracingActive() ? { mixin: logTraceFields } : {}),
    },
    destination ?? standardOutput(),
  );
}

/**
 * For errors that repeat while something is down (a worker's Redis connection errors several times
 * a second): the first is logged at once, the rest at most every `everyMs` with how many were left
 * out, and `recovered()` logs the end of the outage once.
 */
export class OutageLog {
  private lastLogged = -Infinity;
  private suppressed = 0;
  private down = false;

  constructor(
    private readonly log: Logger,
    private readonly what: string,
    private readonly everyMs = 30_000,
    private readonly clock: () => number = Date.now,
  ) {}

  error(err: Error): void {
    const now = this.clock();
    if (now - this.lastLogged < this.everyMs) {
      this.suppressed++;
      return;
    }
    this.log.warn(
      { err: err.message, ...(this.down ? { suppressed: this.suppressed } : {}) },
      this.down
        ? `${this.what} still failing`
        : `${this.what} failing; repeats are logged at most every ${Math.round(this.everyMs / 1000)} s`,
    );
    this.down = true;
    this.lastLogged = now;
    this.suppressed = 0;
  }

  recovered(): void {
    if (!this.down) return;
    this.log.info({ suppressed: this.suppressed }, `${this.what} working again`);
    this.down = false;
    this.lastLogged = -Infinity;
    this.suppressed = 0;
  }
}
