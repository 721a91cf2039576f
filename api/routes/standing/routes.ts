import crypto from 'node:crypto';
import { Router } from '@koa/router';
import type { Context } from 'koa';
import { playerStandingView, standingPlayer } from '../../../common/usecases/standing.js';
import { AppError } from '../../../common/errors.js';
import { fileAppeal } from '../../../common/usecases/appeals.js';
import { signIn } from '../../../common/usecases/sign-in.js';
import { openPlayerExport } from '../../../common/usecases/player-export.js';
import { sendExport } from '../players/export.js';
import type { ApiDeps } from '../../deps.js';
import { recordPage, signInPage, standingPage, type PlayerCopy } from './page.js';
import { formPages } from './form-pages.js';

const SESSION_COOKIE = 'pt_standing';
const CSRF_COOKIE = 'pt_standing_csrf';
/** How long a standing page session lasts after sign-in. */
const SESSION_SECONDS = 30 * 60;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * The player's standing page (/standing): the player signs in with the same account as the OAuth
 * page and sees their trust score and its history, sanctions in force, strikes, and every decision
 * about them with its statement of reasons; and appeals one from the page. The session is a signed
 * HttpOnly, SameSite=Strict cookie of 30 minutes (no server state); every form carries a CSRF token
 * bound to a cookie of its own. No script runs on these pages.
 */
export function standingRoutes(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/standing' });
  const { mac, cookieOptions, headers, csrfToken, csrfValid } = formPages({
    pepper: deps.pepper,
    issuer: deps.issuer,
    path: '/standing',
    cookie: CSRF_COOKIE,
    scope: 'standing',
  });

  /** The player id a session cookie names, when this service signed it and it has not expired. */
  function sessionPlayerId(ctx: Context): string | undefined {
    return session(ctx)?.playerId;
  }

  /** The session a cookie names (its player and when it was issued), when valid and not expired. */
  function session(ctx: Context): { playerId: string; issuedAt: number } | undefined {
    const [playerId, expires, signature] = (ctx.cookies.get(SESSION_COOKIE) ?? '').split('.');
    if (!playerId || !expires || !signature) return undefined;
    const expected = mac(`standing:${playerId}.${expires}`);
    if (
      signature.length !== expected.length ||
      !crypto.timingSafeEqual(Buffer.from(signature), Buffer.from(expected))
    )
      return undefined;
    return Number(expires) > deps.clock().getTime()
      ? { playerId, issuedAt: Number(expires) - SESSION_SECONDS * 1000 }
      : undefined;
  }

  /**
   * The signed-in player: a live session of a player who still exists and was not erased (an erasure
   * ends every session, though the cookie itself is stateless). A session whose player is gone is
   * cleared. Undefined: not signed in.
   */
  async function signedIn(
    ctx: Context,
  ): Promise<{ id: string; service_id: string; gamer_tag: string; trust_score: number } | undefined> {
    const current = session(ctx);
    if (!current) return undefined;
    const player = await standingPlayer(deps.pool, current.playerId);
    // A session issued before the player's sessions were ended (a stolen account given back) is over.
    const ended = player?.sessions_revoked_at && current.issuedAt <= player.sessions_revoked_at.getTime();
    if (!player || ended) {
      ctx.cookies.set(SESSION_COOKIE, '', { ...cookieOptions(ctx), maxAge: 0 });
      return undefined;
    }
    return player;
  }

  async function render(
    ctx: Context,
    p: { id: string; service_id: string; gamer_tag: string; trust_score: number },
    extra: { notice?: string; error?: string } = {},
  ) {
    const view = await playerStandingView(deps.pool, p, {
      now: deps.clock(),
      appealWindowDays: deps.config.appealWindowDays,
      caps: deps.config.penaltyCaps,
    });
    ctx.body = standingPage({
      gamerTag: p.gamer_tag,
      trustScore: p.trust_score,
      ...view,
      csrf: csrfToken(ctx),
      notice: extra.notice,
      error: extra.error,
    });
  }

  /** Every form post: a form body and this browser's CSRF token, else a page that says so. */
  function formRefused(ctx: Context): boolean {
    headers(ctx);
    if (!ctx.is('application/x-www-form-urlencoded')) {
      ctx.status = 415;
      ctx.body = signInPage({ csrf: csrfToken(ctx), error: 'Submit the forms of this page.' });
      return true;
    }
    if (!csrfValid(ctx)) {
      ctx.status = 403;
      ctx.body = signInPage({
        csrf: csrfToken(ctx),
        error: 'This form expired or did not come from this page. Try again.',
      });
      return true;
    }
    return false;
  }

  router.get('/', async (ctx) => {
    headers(ctx);
    const player = await signedIn(ctx);
    if (!player) {
      // A valid session whose player is gone (erased): say so, once; the cookie is cleared.
      const gone = sessionPlayerId(ctx) !== undefined;
      ctx.body = signInPage({
        csrf: csrfToken(ctx),
        error: gone ? 'This account no longer exists.' : undefined,
      });
      return;
    }
    const filed = ctx.query.filed === '1';
    await render(ctx, player, filed ? { notice: 'Your appeal was filed. A moderator will review it.' } : {});
  });

  // The player's own record (GDPR Art. 15, 20): the same export as a studio's or an admin's, as the
  // player may see it. Without a session: back to the sign-in.
  router.get('/export', async (ctx) => {
    const player = await signedIn(ctx);
    if (!player) {
      ctx.redirect('/standing');
      return;
    }
    const now = deps.clock();
    sendExport(
      ctx,
      player.service_id,
      await openPlayerExport(
        deps.pool,
        player.service_id,
        { kind: 'player' },
        { now, appealWindowDays: deps.config.appealWindowDays, caps: deps.config.penaltyCaps },
      ),
    );
  });

  // The same copy, readable: one page made from the same document as the download.
  router.get('/record', async (ctx) => {
    const player = await signedIn(ctx);
    if (!player) {
      ctx.redirect('/standing');
      return;
    }
    headers(ctx);
    const chunks = await openPlayerExport(
      deps.pool,
      player.service_id,
      { kind: 'player' },
      { now: deps.clock(), appealWindowDays: deps.config.appealWindowDays, caps: deps.config.penaltyCaps },
    );
    let text = '';
    for await (const chunk of chunks) text += chunk;
    ctx.body = recordPage(JSON.parse(text) as PlayerCopy);
  });

  router.post('/sign-in', async (ctx) => {
    if (formRefused(ctx)) return;
    const body = ctx.request.body as Record<string, unknown>;
    const gamerTag = (str(body.gamer_tag) ?? '').trim();
    const password = str(body.password) ?? '';
    if (!gamerTag || !password) {
      ctx.status = 400;
      ctx.body = signInPage({ csrf: csrfToken(ctx), error: 'Enter your gamer tag and password.', gamerTag });
      return;
    }
    const result = await signIn(deps.pool, { gamerTag, password, address: ctx.ip, now: deps.clock() });
    if (!result.ok) {
      if (result.reason === 'locked') {
        ctx.status = 429;
        ctx.set('Retry-After', String(result.retryAfterSeconds));
        ctx.body = signInPage({
          csrf: csrfToken(ctx),
          error: `Too many failed sign-ins. Try again in ${result.retryAfterSeconds} seconds.`,
          gamerTag,
        });
        return;
      }
      ctx.status = 401;
      ctx.body = signInPage({
        csrf: csrfToken(ctx),
        // An erased account's gamer tag is not kept (docs/compliance.md "Erasure"), so it reads as unknown: said
        // here for everyone, which tells nobody whether a given tag was erased.
        error:
          'The gamer tag or password is not right. An account that was erased is gone with its gamer tag and cannot be signed in to.',
        gamerTag,
      });
      return;
    }
    const expires = deps.clock().getTime() + SESSION_SECONDS * 1000;
    const value = `${result.account.playerId}.${expires}`;
    ctx.cookies.set(SESSION_COOKIE, `${value}.${mac(`standing:${value}`)}`, {
      ...cookieOptions(ctx),
      maxAge: SESSION_SECONDS * 1000,
    });
    ctx.status = 303;
    ctx.redirect('/standing');
  });

  router.post('/appeal', async (ctx) => {
    if (formRefused(ctx)) return;
    const player = await signedIn(ctx);
    if (!player) {
      ctx.status = 401;
      ctx.body = signInPage({ csrf: csrfToken(ctx), error: 'Your session ended. Sign in again.' });
      return;
    }
    const body = ctx.request.body as Record<string, unknown>;
    try {
      const { outbox } = await fileAppeal(deps.pool, {
        serviceId: player.service_id,
        filedBy: { kind: 'player' },
        body: Object.fromEntries(
          ['sanctionId', 'offenseId', 'reason', 'statement']
            .filter((k) => typeof body[k] === 'string' && body[k] !== '')
            .map((k) => [k, body[k]]),
        ),
        now: deps.clock(),
        windowDays: deps.config.appealWindowDays,
      });
      deps.dispatcher.enqueue(outbox);
      ctx.status = 303;
      ctx.redirect('/standing?filed=1');
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      ctx.status = err.status;
      const fields = (err.fields ?? []).map((f) => `${f.field} ${f.message}`).join('; ');
      await render(ctx, player, { error: `The appeal was not filed: ${fields || err.detail}` });
      headers(ctx);
    }
  });

  router.post('/sign-out', (ctx) => {
    if (formRefused(ctx)) return;
    ctx.cookies.set(SESSION_COOKIE, '', { ...cookieOptions(ctx), maxAge: 0 });
    ctx.status = 303;
    ctx.redirect('/standing');
  });

  return router;
}
