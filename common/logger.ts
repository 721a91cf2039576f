import { pino, type Logger } from 'pino';

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

export function createLogger(level: string, name: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      name,
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
