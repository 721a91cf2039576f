import { AUTOMATED_SOURCES, NOT_FILED_BY_STUDIO, SEVERITIES } from '../domain/reports.js';
import { REPORT_ORIGINS } from '../domain/decision-record.js';

/**
 * SQL pieces statements share: the severities' order, and what renders answers as the API sends
 * them, so PostgreSQL writes the JSON text once and the API passes it through (no parse into objects,
 * no re-shaping, no second stringify). The views rendered this way are checked field by field against
 * the JavaScript views (common/views.ts) they replace on the hot read paths.
 */

/** The severities as an SQL array, mildest first: array_position gives a severity's rank (1..4). */
export const SEVERITY_ORDER_SQL = `ARRAY[${SEVERITIES.map((s) => `'${s}'`).join(',')}]`;

/** A constant list of the domain's as SQL literals for IN (...): never a client's value. */
const sqlList = (xs: readonly string[]) => xs.map((x) => `'${x}'`).join(', ');
/** Offense sources (context->>'source') that are automated detection. */
export const AUTOMATED_SOURCES_SQL = sqlList(AUTOMATED_SOURCES);
/** Offense sources no studio filed (notices, the service's own checks). */
export const NOT_FILED_BY_STUDIO_SQL = sqlList(NOT_FILED_BY_STUDIO);
/** Offense sources a decision record names as they are (any other: a player's with a reporter, else the game's). */
export const NAMED_ORIGINS_SQL = sqlList(REPORT_ORIGINS.filter((o) => o !== 'game'));

/** A timestamptz as JavaScript's Date#toISOString writes it: UTC, milliseconds, "Z"; null stays null. */
export const isoSql = (expr: string) =>
  `to_char(${expr} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The keyset cursor of a (created_at, id) listing as common/cursor.ts encodes it: base64url (no
 * padding) of the JSON array [full-precision timestamp, id].
 */
export const timeCursorSql = (ts: string, id: string) =>
  `rtrim(translate(encode(convert_to('["' || (to_json(${ts})#>>'{}') || '","' || ${id}::text || '"]', 'UTF8'),
                          'base64'), E'+/\\n', '-_'), '=')`;
