import crypto from 'node:crypto';
import type { Context } from 'koa';
import { STANDING_CSP } from './page.js';

/**
 * What every server-rendered page for people shares (the standing page, the notice form): its
 * security headers, and a CSRF token for its forms, an HMAC of a cookie of its own (HttpOnly,
 * SameSite=Strict, limited to the page's `path`).
 */
export function formPages(opts: {
  pepper: string;
  issuer: string;
  path: string;
  cookie: string;
  scope: string;
}) {
  const mac = (what: string) => crypto.createHmac('sha256', opts.pepper).update(what).digest('base64url');
  const cookieOptions = (ctx: Context) => ({
    httpOnly: true,
    sameSite: 'strict' as const,
    path: opts.path,
    secure: ctx.protocol === 'https' || opts.issuer.startsWith('https:'),
    overwrite: true,
  });
  return {
    mac,
    cookieOptions,
    /** An HTML page of these: no script, nothing framed, nothing cached, no referrer. */
    headers(ctx: Context) {
      ctx.set('Content-Security-Policy', STANDING_CSP);
      ctx.set('X-Frame-Options', 'DENY');
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.set('Cache-Control', 'no-store');
      ctx.type = 'text/html; charset=utf-8';
    },
    /** The form token of this browser: an HMAC of its CSRF cookie (set when missing). */
    csrfToken(ctx: Context): string {
      let cookie = ctx.cookies.get(opts.cookie);
      if (!cookie || !/^[A-Za-z0-9_-]{43}$/.test(cookie)) {
        cookie = crypto.randomBytes(32).toString('base64url');
        ctx.cookies.set(opts.cookie, cookie, cookieOptions(ctx));
      }
      return mac(`${opts.scope}-csrf:${cookie}`);
    },
    /** Whether the form sent the token of this browser's cookie. */
    csrfValid(ctx: Context): boolean {
      const cookie = ctx.cookies.get(opts.cookie);
      const raw = (ctx.request.body as Record<string, unknown> | undefined)?.csrf;
      const sent = typeof raw === 'string' ? raw : '';
      if (!cookie) return false;
      const expected = mac(`${opts.scope}-csrf:${cookie}`);
      return (
        sent.length === expected.length && crypto.timingSafeEqual(Buffer.from(sent), Buffer.from(expected))
      );
    },
  };
}
