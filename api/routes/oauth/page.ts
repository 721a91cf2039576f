/** Server-rendered sign-in and consent page: no scripts, no external assets, labelled inputs. */

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d2330; }
  main { max-width: 28rem; margin: 3rem auto; background: #fff; padding: 2rem; border-radius: 8px; box-shadow: 0 1px 4px #0002; }
  h1 { font-size: 1.4rem; margin-top: 0; } h2 { font-size: 1.1rem; margin-top: 2rem; }
  label { display: block; margin: .75rem 0 .25rem; font-weight: 600; }
  input[type=text], input[type=password] { width: 100%; box-sizing: border-box; padding: .5rem; font-size: 1rem; border: 1px solid #8a93a6; border-radius: 4px; }
  input:focus, button:focus { outline: 3px solid #4c7dff; outline-offset: 2px; }
  .actions { display: flex; gap: .75rem; margin-top: 1.25rem; }
  button { padding: .6rem 1.2rem; font-size: 1rem; border-radius: 4px; border: 1px solid #2848c8; background: #2848c8; color: #fff; cursor: pointer; }
  button.secondary { background: #fff; color: #2848c8; }
  .error { background: #fde8e8; border: 1px solid #c62828; padding: .75rem; border-radius: 4px; }
  .scope { background: #eef2ff; padding: .75rem; border-radius: 4px; }
`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
}

export function errorPage(title: string, message: string): string {
  return layout(
    title,
    `<h1>${escapeHtml(title)}</h1><p class="error" role="alert">${escapeHtml(message)}</p>
<p>Return to the game and try again. If this keeps happening, contact the game's support.</p>`,
  );
}

export interface ConsentPageInput {
  gameTitle: string;
  scope: string;
  hidden: Record<string, string>;
  error?: string | undefined;
  gamerTag?: string | undefined;
}

const SCOPE_TEXT: Record<string, string> = {
  profile: 'Read your player profile: gamer tag, name, trust score, verification status, games and offenses.',
  offline_access:
    'Keep this access while you are away, without signing in again, until you or the game revoke it.',
};

export function consentPage(input: ConsentPageInput): string {
  const hidden = Object.entries(input.hidden)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('\n');
  const scopes = input.scope
    .split(' ')
    .map((s) => `<li>${escapeHtml(SCOPE_TEXT[s] ?? s)}</li>`)
    .join('');
  const game = escapeHtml(input.gameTitle);
  return layout(
    `Sign in to ${input.gameTitle}`,
    `<h1>${game} wants to access your player-trust account</h1>
${input.error ? `<p class="error" role="alert" id="form-error">${escapeHtml(input.error)}</p>` : ''}
<div class="scope"><p>If you allow it, ${game} can:</p><ul>${scopes}</ul></div>
<form method="post" action="/v1/oauth/authorize" aria-labelledby="signin-heading">
<h2 id="signin-heading">Sign in</h2>
${hidden}
<label for="gamer_tag">Gamer tag</label>
<input type="text" id="gamer_tag" name="gamer_tag" autocomplete="username" maxlength="64" value="${escapeHtml(input.gamerTag ?? '')}" required autofocus>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" maxlength="256" required>
<div class="actions">
<button type="submit" name="decision" value="approve">Sign in and allow</button>
<button type="submit" name="decision" value="deny" class="secondary" formnovalidate>Deny</button>
</div>
</form>
<form method="post" action="/v1/oauth/authorize" aria-labelledby="signup-heading">
<h2 id="signup-heading">New here? Create an account</h2>
${hidden}
<label for="new_full_name">Full name</label>
<input type="text" id="new_full_name" name="full_name" autocomplete="name" maxlength="200" required>
<label for="new_gamer_tag">Gamer tag</label>
<input type="text" id="new_gamer_tag" name="gamer_tag" autocomplete="username" maxlength="64" required>
<label for="new_password">Password (at least 8 characters)</label>
<input type="password" id="new_password" name="password" autocomplete="new-password" minlength="8" maxlength="256" required>
<div class="actions"><button type="submit" name="decision" value="signup">Create account and allow</button></div>
</form>`,
  );
}
