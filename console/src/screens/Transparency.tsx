import { useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import {
  getTransparencyReport,
  transparencyReportPath,
  type TransparencyReport,
  deleteTransparencyAccount,
  listTransparencyAccounts,
  listTransparencyStatements,
  putTransparencyAccount,
  retryTransparencyStatement,
  type TransparencyStatement,
} from '../api';
import { ErrorLine } from '../components/ErrorLine';
import { LIMITS } from '../generated/contract';
import { NoticeLine } from '../components/NoticeLine';
import { when } from '../format';
import { useAction, useLoad } from '../hooks';

/** The database's words for a refused statement, field by field, as text. */
export function refusalWords(refusal: unknown): string {
  if (refusal && typeof refusal === 'object' && !Array.isArray(refusal))
    return Object.entries(refusal as Record<string, unknown>)
      .map(
        ([field, messages]) =>
          `${field}: ${Array.isArray(messages) ? messages.join(' ') : JSON.stringify(messages)}`,
      )
      .join('; ');
  return typeof refusal === 'string' ? refusal : JSON.stringify(refusal);
}

/** One statement's state in words, for a sanction's row (the player screen) and this screen. */
export function StatementState({
  s,
}: {
  s: Pick<TransparencyStatement, 'state' | 'permalink' | 'dryRun' | 'refusal' | 'lastError'>;
}) {
  if (s.state === 'sent')
    return s.dryRun ? (
      <span>written in the dry run</span>
    ) : s.permalink ? (
      <a href={s.permalink} target="_blank" rel="noreferrer noopener">
        sent (its page in the EU database)
      </a>
    ) : (
      <span>sent (the database already held it)</span>
    );
  if (s.state === 'refused') return <span className="error">refused: {refusalWords(s.refusal)}</span>;
  return <span>pending{s.lastError ? ` (last attempt: ${s.lastError})` : ''}</span>;
}

/**
 * The EU's DSA Transparency Database (admins): what needs attention first (statements the database
 * refused, with its words, each sent again once mended; the oldest pending), then each platform's
 * account. Every string from the database or a studio is rendered as text.
 */
export function TransparencyScreen() {
  const page = useLoad(() => listTransparencyStatements({ limit: 100 }), [], 15_000);
  const accounts = useLoad(listTransparencyAccounts, []);
  const dryRun = useLoad(() => listTransparencyStatements({ dryRun: true, limit: 20 }), []);
  const reload = async () => {
    await Promise.all([page.reload(), accounts.reload(), dryRun.reload()]);
  };
  const { busy, notice, run } = useAction(reload);
  const [mode, setMode] = useState<'submit' | 'dry-run'>('dry-run');

  async function configure(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    const platform = String(data.get('platform')).trim() || 'operator';
    await run(async () => {
      await putTransparencyAccount(platform, {
        mode,
        ...(mode === 'submit'
          ? { baseUrl: String(data.get('baseUrl')).trim(), token: String(data.get('token')) }
          : {}),
      });
      form.reset();
    }, `Account of ${platform} saved: its restrictions send statements from now on.`);
  }

  const items = page.data?.items ?? [];
  const owed = accounts.data?.owedNowhere ?? [];
  const refused = items.filter((s) => s.state === 'refused');
  const pending = items.filter((s) => s.state === 'pending');
  return (
    <section aria-labelledby="tdb-title">
      <h1 id="tdb-title">EU Transparency Database</h1>
      <p>
        Every restriction placed while its platform has an account sends one statement of reasons to the
        Commission&rsquo;s DSA Transparency Database (the compliance officer&rsquo;s guide,
        docs/compliance.md).
      </p>
      <NoticeLine notice={notice} />
      <ErrorLine error={page.error ?? accounts.error ?? dryRun.error} />
      {page.data && (
        <p role="status">
          {page.data.refused} refused, {page.data.pending} pending
          {page.data.oldestPendingAt ? `, the oldest since ${when(page.data.oldestPendingAt)}` : ''}
          {owed.length
            ? `; ${owed.reduce((n, o) => n + o.restrictions, 0)} restriction(s) owed nowhere (no account when placed)`
            : ''}
          .
        </p>
      )}
      {owed.length > 0 && (
        <div className="warning" role="alert" aria-labelledby="owed-title">
          <h2 id="owed-title">Restrictions that sent no statement</h2>
          <p>
            These restrictions were placed while their platform had no account here, so no statement of
            reasons went to the database for them, and connecting the platform now sends none for them either.
            A platform that moderates players in the EU owes one for each.
          </p>
          <table aria-labelledby="owed-title">
            <thead>
              <tr>
                <th scope="col">Platform</th>
                <th scope="col">Restrictions</th>
                <th scope="col">Placed</th>
                <th scope="col">Account now</th>
              </tr>
            </thead>
            <tbody>
              {owed.map((o) => (
                <tr key={o.platform}>
                  <td>{o.platformName}</td>
                  <td>{o.restrictions}</td>
                  <td>
                    {when(o.firstPlacedAt)} to {when(o.lastPlacedAt)}
                  </td>
                  <td>
                    {o.connected
                      ? 'connected (after these were placed)'
                      : 'none: connect it below (a dry run first)'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <h2 id="refused-title">Refused by the database</h2>
      {refused.length === 0 ? (
        <p>None.</p>
      ) : (
        <StatementTable
          label="Refused statements"
          items={refused}
          action={(s) => (
            <button
              type="button"
              disabled={busy}
              onClick={() =>
                void run(
                  () => retryTransparencyStatement(s.id),
                  'Sent again: pending until the database answers.',
                )
              }
            >
              Send again
            </button>
          )}
        />
      )}

      <h2>Oldest pending</h2>
      {pending.length === 0 ? <p>None.</p> : <StatementTable label="Pending statements" items={pending} />}

      <h2 id="dry-run-title">Written in the dry run</h2>
      {(dryRun.data?.items ?? []).length === 0 ? (
        <p>None: no platform in dry run has placed a restriction yet.</p>
      ) : (
        <>
          <p>
            What each statement would say to the database, newest first, for review before the platform
            submits for real. Nothing here was sent.
          </p>
          {dryRun.data!.items.map((s) => (
            <details key={s.id}>
              <summary>
                <code>{s.puid}</code> for {s.platformName}, written {when(s.sentAt ?? s.createdAt)}
              </summary>
              <pre className="report-text">{JSON.stringify(s.statement, null, 2)}</pre>
            </details>
          ))}
        </>
      )}

      <ReportPanel />

      <h2 id="accounts-title">Accounts</h2>
      {(accounts.data?.items ?? []).length === 0 ? (
        <p>No platform is connected: no statement is sent.</p>
      ) : (
        <table aria-labelledby="accounts-title">
          <thead>
            <tr>
              <th scope="col">Platform</th>
              <th scope="col">Mode</th>
              <th scope="col">Database</th>
              <th scope="col">Token</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {accounts.data!.items.map((a) => (
              <tr key={a.platform}>
                <td>{a.platformName}</td>
                <td>{a.mode === 'dry-run' ? 'dry run (written for review, not sent)' : 'submit'}</td>
                <td>{a.baseUrl ?? '—'}</td>
                <td>{a.tokenSet ? 'set' : '—'}</td>
                <td>
                  <button
                    type="button"
                    disabled={busy}
                    onClick={() =>
                      void run(
                        () => deleteTransparencyAccount(a.platform),
                        `Account of ${a.platformName} removed.`,
                      )
                    }
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3 id="connect-title">Connect a platform, or change its account</h3>
      <form className="row" onSubmit={(e) => void configure(e)} aria-labelledby="connect-title">
        <label>
          Platform (operator for global decisions, or a studio&rsquo;s id for the decisions on its games)
          <input name="platform" defaultValue="operator" maxLength={LIMITS.platform} required size={40} />
        </label>
        <fieldset>
          <legend>Mode</legend>
          <label>
            <input
              type="radio"
              name="mode"
              checked={mode === 'dry-run'}
              onChange={() => setMode('dry-run')}
            />{' '}
            Dry run: write the statements for review, send nothing
          </label>
          <label>
            <input type="radio" name="mode" checked={mode === 'submit'} onChange={() => setMode('submit')} />{' '}
            Submit to the database (its sandbox first)
          </label>
        </fieldset>
        {mode === 'submit' && (
          <>
            <label>
              The database&rsquo;s address
              <input name="baseUrl" type="url" maxLength={LIMITS.tdbBaseUrl} required />
            </label>
            <label>
              The platform&rsquo;s API token (kept sealed, never shown again)
              <input
                name="token"
                type="password"
                autoComplete="off"
                minLength={8}
                maxLength={LIMITS.tdbToken}
                required
              />
            </label>
          </>
        )}
        <button type="submit" disabled={busy}>
          Save the account
        </button>
      </form>
    </section>
  );
}

function StatementTable({
  label,
  items,
  action,
}: {
  label: string;
  items: (TransparencyStatement & { playerServiceId?: string | null })[];
  action?: (s: TransparencyStatement) => ReactNode;
}) {
  return (
    <table aria-label={label}>
      <thead>
        <tr>
          <th scope="col">Player</th>
          <th scope="col">Decision (puid)</th>
          <th scope="col">Platform</th>
          <th scope="col">Since</th>
          <th scope="col">Attempts</th>
          <th scope="col">State</th>
          {action && (
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>
        {items.map((s) => (
          <tr key={s.id}>
            <td>
              {s.playerServiceId ? (
                <Link to={`/players/${encodeURIComponent(s.playerServiceId)}`}>{s.playerServiceId}</Link>
              ) : (
                '—'
              )}
            </td>
            <td>
              <code>{s.puid}</code>
            </td>
            <td>{s.platformName}</td>
            <td>{when(s.refusedAt ?? s.createdAt)}</td>
            <td>{s.attempts}</td>
            <td className="report-text">
              <StatementState s={s} />
            </td>
            {action && <td>{action(s)}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The transparency report (Art. 15, 24(1)) for a period and a platform, shown and downloaded as CSV. */
function ReportPanel() {
  const year = new Date().getUTCFullYear();
  const [params, setParams] = useState({ from: `${year}-01-01`, to: `${year + 1}-01-01`, platform: 'all' });
  const [report, setReport] = useState<TransparencyReport>();
  const [error, setError] = useState<Error>();
  async function show(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    const next = {
      from: String(data.get('from')),
      to: String(data.get('to')),
      platform: String(data.get('platform')).trim() || 'all',
    };
    setParams(next);
    try {
      setReport(await getTransparencyReport(next));
      setError(undefined);
    } catch (err) {
      setError(err as Error);
    }
  }
  return (
    <>
      <h2 id="report-title">Transparency report</h2>
      <form className="row" onSubmit={(e) => void show(e)} aria-labelledby="report-title">
        <label>
          From (inclusive)
          <input name="from" type="date" defaultValue={params.from} required />
        </label>
        <label>
          To (exclusive)
          <input name="to" type="date" defaultValue={params.to} required />
        </label>
        <label>
          Platform (all, operator or a studio&rsquo;s id)
          <input name="platform" defaultValue={params.platform} maxLength={LIMITS.platform} />
        </label>
        <button type="submit">Show the report</button>
        <a href={transparencyReportPath({ ...params, format: 'csv' })} download>
          Download as CSV
        </a>
      </form>
      <ErrorLine error={error} />
      {report && (
        <table aria-label="Transparency report">
          <thead>
            <tr>
              <th scope="col">Section</th>
              <th scope="col">Figure</th>
              <th scope="col">Breakdown</th>
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            {report.rows.map((r) => (
              <tr key={`${r.section}|${r.field}|${r.breakdown}`}>
                <td>{r.section}</td>
                <td>{r.field}</td>
                <td>{r.breakdown}</td>
                <td>{String(r.value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
