import { escapeHtml } from '../oauth/page.js';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Router } from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import mount from 'koa-mount';
import serve from 'koa-static';
import type { Moderator } from '../../../common/data/repos/moderation.js';
import { AppError } from '../../../common/errors.js';
import {
  closeConsoleSession,
  CONSOLE_COOKIE,
  openConsoleSession,
} from '../../../common/usecases/console-sessions.js';
import type { ApiDeps } from '../../deps.js';
import { requireJsonBody } from '../../middleware/errors.js';
import { moderatorAuth } from '../../middleware/moderator-auth.js';
import { signInModerator } from '../admin/sign-in.js';
import type { Answer } from '../../contract-types.js';
import type { paths } from './contract.js';

type Paths = typeof paths;

/**
 * The console's pages: only its own scripts and styles, nothing inline, nothing from elsewhere, no
 * framing. Attacker-controlled text it shows can therefore never run, even if it were ever put into
 * the page as markup.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
/** The API reference: Swagger UI's bundle and our start-up script, served from here. */
const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const YEAR = 365 * 24 * 3600;

function pageHeaders(ctx: Context, csp: string) {
  ctx.set('Content-Security-Policy', csp);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
}

/**
 * The console's sign-in (an HttpOnly, SameSite=Strict session cookie, Secure over https; the CSRF
 * token in the answer, for the X-CSRF-Token header of writes), who is signed in, and sign-out.
 */
export function consoleSessionRoutes(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/v1/admin/console-session' });
  const policy = {
    idleSeconds: deps.config.consoleIdleTimeoutSeconds,
    maxAgeSeconds: deps.config.consoleSessionMaxSeconds,
  };
  const secure = (ctx: Context) => ctx.protocol === 'https' || deps.issuer.startsWith('https:');
  const auth = moderatorAuth(deps);

  router.post('/', requireJsonBody(), async (ctx) => {
    const m = await signInModerator(deps, ctx);
    const { sessionId, csrfToken } = await openConsoleSession(deps.pool, m.id, policy, deps.clock());
    ctx.cookies.set(CONSOLE_COOKIE, sessionId, {
      httpOnly: true,
      sameSite: 'strict',
      secure: secure(ctx),
      path: '/',
      overwrite: true,
    });
    ctx.status = 201;
    ctx.body = {
      moderator: { id: m.id, username: m.username, displayName: m.displayName, role: m.role },
      csrfToken,
      idleTimeoutSeconds: policy.idleSeconds,
    } satisfies Answer<Paths, '/v1/admin/console-session', 'post', 201>;
  });

  // Only the cookie counts here: a bearer token has no console session to describe. No cookie at all
  // is the console's first visit, not a failed authentication: 204, so every first load does not
  // log a 401 in the browser and the API. A cookie that no longer opens a session is still a 401.
  router.get(
    '/',
    async (ctx, next: Next) => {
      if (!ctx.cookies.get(CONSOLE_COOKIE)) {
        ctx.status = 204;
        return;
      }
      await next();
    },
    moderatorAuth(deps, { cookieOnly: true }),
    (ctx) => {
      const m = ctx.state.moderator as Moderator;
      ctx.body = {
        moderator: { id: m.id, username: m.username, displayName: m.displayName, role: m.role },
        csrfToken: (ctx.state.consoleSession as { csrfToken: string }).csrfToken,
        idleTimeoutSeconds: policy.idleSeconds,
      } satisfies Answer<Paths, '/v1/admin/console-session', 'get'>;
    },
  );

  router.delete('/', auth, async (ctx) => {
    const cookie = ctx.cookies.get(CONSOLE_COOKIE);
    if (cookie) await closeConsoleSession(deps.pool, cookie);
    ctx.cookies.set(CONSOLE_COOKIE, '', { httpOnly: true, sameSite: 'strict', path: '/', maxAge: 0 });
    ctx.status = 204;
  });

  return router;
}

/**
 * The built console (CONSOLE_DIR): /console/assets/* are content-hashed, so cached for a year; any
 * other /console path is the single page (no-cache), which routes itself. Without a build, /console
 * says how to make one.
 */
export function consoleStatic(deps: ApiDeps): Middleware[] {
  const dir = path.resolve(deps.config.consoleDir);
  const assets = mount(
    '/console/assets',
    serve(path.join(dir, 'assets'), {
      index: false,
      maxage: YEAR * 1000,
      immutable: true,
      // koa-send keeps a Cache-Control already set (the app's no-store), so it is set here.
      setHeaders: (res) => {
        res.setHeader('Content-Security-Policy', CONSOLE_CSP);
        res.setHeader('Cache-Control', `public, max-age=${YEAR}, immutable`);
      },
    }),
  );
  const page: Middleware = async (ctx, next) => {
    if (ctx.path !== '/console' && !ctx.path.startsWith('/console/')) return next();
    if (ctx.path.startsWith('/console/assets/')) return next(); // not found above: a 404
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      throw new AppError(405, 'method_not_allowed', `${ctx.method} is not allowed here.`, {
        headers: { Allow: 'GET, HEAD' },
      });
    }
    const index = path.join(dir, 'index.html');
    if (!fs.existsSync(index))
      throw new AppError(
        503,
        'console_not_built',
        'The console is not built: run npm run build (npm start builds it when it is missing).',
      );
    pageHeaders(ctx, CONSOLE_CSP);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = fs.createReadStream(index);
  };
  return [assets, page];
}

const require = createRequire(import.meta.url);
const SWAGGER_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const SWAGGER_FILES = new Set(['swagger-ui.css', 'swagger-ui-bundle.js']);
const DOCS_INIT = `window.addEventListener('DOMContentLoaded', function () {
  window.ui = SwaggerUIBundle({
    url: '/v1/openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    defaultModelsExpandDepth: 0,
    // Tags start closed: Swagger UI 5.35 stops rendering partway when some 135 operations of this
    // OpenAPI 3.1 document are expanded at once (no error shown); one tag opened at a time renders.
    docExpansion: 'none',
  });
});
`;
const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>player-trust API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<main id="reference" aria-label="player-trust API reference"><noscript>The reference needs JavaScript; the document itself is at <a href="/v1/openapi.json">/v1/openapi.json</a>.</noscript></main>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>
`;
const LANDING_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>player-trust</title></head>
<body>
<main>
<h1>player-trust</h1>
<p>Trust profiles and misbehaviour reports for game studios.</p>
<ul>
<li><a href="/docs">API reference</a> (for studios)</li>
<li><a href="/console">Moderator console</a></li>
<li><a href="/v1/openapi.json">OpenAPI document</a></li>
<li><a href="/standing">Your standing</a> (for players: your trust score, the decisions about you and why, appeals)</li>
<li><a href="/notice">Report illegal content or behaviour</a> (for anyone, under the EU Digital Services Act; <a href="/notice/status">where your notice stands</a>)</li>
</ul>
</main>
</body>
</html>
`;

/** A shield: what browsers ask for as /favicon.ico on every page (SVG, no outside request). */
const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path fill="#1f4fbf" d="M16 2 4 6v9c0 7.5 5.1 13.6 12 15 6.9-1.4 12-7.5 12-15V6z"/><path fill="#fff" d="m14 20.6-4.3-4.3 1.9-1.9 2.4 2.4 6.4-6.4 1.9 1.9z"/></svg>`;

/** /docs (Swagger UI from npm, served here) and / (where to go: a page for browsers, JSON otherwise). */
export function docsPages(mailbox?: string): Router {
  const router = new Router();
  // npm start's development mailbox, when it runs one (DEV_MAILBOX_URL): listed with the pages.
  const landing = mailbox
    ? LANDING_PAGE.replace(
        '</ul>',
        `<li><a href="${escapeHtml(mailbox)}">Development mailbox</a> (the mails to notifiers, while no SMTP server is set)</li>\n</ul>`,
      )
    : LANDING_PAGE;
  router.get('/', (ctx) => {
    if (ctx.accepts('json', 'html') === 'html') {
      pageHeaders(ctx, "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = landing;
      return;
    }
    ctx.body = {
      name: 'player-trust',
      docs: '/docs',
      console: '/console',
      openapi: '/v1/openapi.json',
      standing: '/standing',
      notice: '/notice',
      noticeStatus: '/notice/status',
      mailbox: mailbox ?? null,
    } satisfies Answer<Paths, '/', 'get'>;
  });
  router.get('/favicon.ico', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.type = 'image/svg+xml';
    ctx.body = FAVICON;
  });
  router.get('/docs', (ctx) => {
    pageHeaders(ctx, DOCS_CSP);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = DOCS_PAGE;
  });
  router.get('/docs/assets/:file', (ctx) => {
    const { file } = ctx.params as { file: string };
    ctx.set('Cache-Control', 'public, max-age=3600');
    if (file === 'init.js') {
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.body = DOCS_INIT;
      return;
    }
    if (!SWAGGER_FILES.has(file)) throw new AppError(404, 'not_found', `No asset ${file}.`);
    ctx.type = file.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8';
    ctx.body = fs.createReadStream(path.join(SWAGGER_DIR, file));
  });
  return router;
}
