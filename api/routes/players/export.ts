import { Readable } from 'node:stream';
import type { Context } from 'koa';

/**
 * Sends a player's export (common/usecases/player-export.ts) as it is produced: chunked JSON, a
 * download. A fault after the first chunk can only cut the connection (the status is sent), so the
 * document then ends unfinished and no JSON parser takes it for whole.
 */
export function sendExport(
  ctx: Context,
  serviceId: string,
  chunks: AsyncGenerator<string>,
  /** What the file is, in its name: `export` (a studio's), `internal-export` or `player-copy`. */
  what = 'export',
): void {
  ctx.type = 'application/json; charset=utf-8';
  ctx.set('Content-Disposition', `attachment; filename="player-${serviceId}-${what}.json"`);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = Readable.from(chunks);
}
