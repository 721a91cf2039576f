import crypto from 'node:crypto';
import { expect } from 'chai';

export interface FormResult {
  status: number;
  location: string | null;
  html: string;
  headers: Headers;
}

/**
 * Plays the player's part on the authorization page without a browser: loads the page, keeps the
 * CSRF cookie, and submits the first (sign-in) or second (sign-up) form the way a browser would.
 */
export async function submitConsent(
  authorizeUrl: string,
  fields: Record<string, string>,
  opts: { form?: 'signin' | 'signup'; dropCsrf?: boolean; cookie?: string } = {},
): Promise<FormResult> {
  const page = await fetch(authorizeUrl, { redirect: 'manual' });
  const html = await page.text();
  expect(page.status, html).to.equal(200);
  const cookie = opts.cookie ?? /pt_csrf=([^;]+)/.exec(page.headers.get('set-cookie') ?? '')?.[1];
  const forms = html.split('<form').slice(1);
  const form = forms[opts.form === 'signup' ? 1 : 0]!;
  const hidden = Object.fromEntries(
    [...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [
      m[1]!,
      decodeEntities(m[2]!),
    ]),
  );
  if (opts.dropCsrf) delete hidden.csrf;
  const action = new URL('/v1/oauth/authorize', authorizeUrl);
  const res = await fetch(action, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(cookie ? { cookie: `pt_csrf=${cookie}` } : {}),
    },
    body: new URLSearchParams({ ...hidden, ...fields }).toString(),
  });
  return {
    status: res.status,
    location: res.headers.get('location'),
    html: await res.text(),
    headers: res.headers,
  };
}

function decodeEntities(s: string): string {
  return s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/**
 * The player signs in on the authorization page and approves the game, with PKCE (S256 of
 * `verifier`): the consent form's answer, whose Location carries the code.
 */
export function approveWithPkce(
  apiUrl: string,
  clientId: string,
  player: { gamerTag: string },
  verifier: string,
  password = 'correct horse battery',
): Promise<FormResult> {
  const url = new URL(`${apiUrl}/v1/oauth/authorize`);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    state: 'state',
    code_challenge: crypto.createHash('sha256').update(verifier, 'ascii').digest('base64url'),
    code_challenge_method: 'S256',
  }))
    url.searchParams.set(k, v);
  return submitConsent(url.toString(), { decision: 'approve', gamer_tag: player.gamerTag, password });
}

/**
 * The player signs in to the game (OAuth with PKCE, which also links them to it) and the game gets
 * their access token: the headers a game sends on the player's behalf.
 */
export async function playerBearer(
  apiUrl: string,
  game: { clientId: string; clientSecret: string },
  player: { gamerTag: string },
): Promise<Record<string, string>> {
  const verifier = crypto.randomBytes(32).toString('base64url');
  const consent = await approveWithPkce(apiUrl, game.clientId, player, verifier);
  const code = new URL(consent.location!).searchParams.get('code')!;
  const res = await fetch(`${apiUrl}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'authorization_code',
      code,
      client_id: game.clientId,
      client_secret: game.clientSecret,
      code_verifier: verifier,
    }),
  });
  const token = (await res.json()) as { access_token: string };
  expect(res.status, JSON.stringify(token)).to.equal(200);
  return { authorization: `Bearer ${token.access_token}`, client_secret: game.clientSecret };
}
