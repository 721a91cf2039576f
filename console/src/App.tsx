import { TemplatesScreen } from './screens/Templates';
import { TransparencyScreen } from './screens/Transparency';
import { ErasuresScreen } from './screens/Erasures';
import { FlaggersScreen } from './screens/Flaggers';
import { ComplianceScreen } from './screens/Compliance';
import { ApprovalsScreen, WavesScreen } from './screens/Waves';
import { RulesScreen } from './screens/Rules';
import { NoticesScreen } from './screens/Notices';
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { NavLink, Route, Routes, useNavigate } from 'react-router';
import { ApiError, getSession, onSignedOut, setCsrfToken, signIn, signOut, type Session } from './api';
import { AppealScreen, AppealsScreen } from './screens/Appeals';
import { AuditScreen } from './screens/Audit';
import { CaseScreen } from './screens/Case';
import { PlayerScreen } from './screens/Player';
import { QueueScreen } from './screens/Queue';
import { QueuesScreen } from './screens/Queues';
import { StatsScreen } from './screens/Stats';

export function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [notice, setNotice] = useState<string>();
  useEffect(() => {
    onSignedOut(() => {
      setSession(null);
      setNotice('Your session ended (signed out, or idle too long). Sign in again.');
    });
    getSession().then(
      (s) => {
        // 204 (no session cookie yet): the sign-in form.
        if (!s) return setSession(null);
        setCsrfToken(s.csrfToken);
        setSession(s);
      },
      () => setSession(null),
    );
  }, []);
  if (session === undefined) return <p role="status">Loading…</p>;
  if (session === null)
    return (
      <SignIn
        notice={notice}
        onSignedIn={(s) => {
          setCsrfToken(s.csrfToken);
          setNotice(undefined);
          setSession(s);
        }}
      />
    );
  return (
    <Layout session={session} onSignedOut={() => setSession(null)}>
      <Routes>
        <Route path="/" element={<QueueScreen session={session} />} />
        <Route path="/cases/:caseId" element={<CaseScreen session={session} />} />
        <Route
          path="/players/:serviceId"
          element={<PlayerScreen isAdmin={session.moderator.role === 'admin'} />}
        />
        <Route path="/appeals" element={<AppealsScreen />} />
        <Route path="/appeals/:appealId" element={<AppealScreen />} />
        <Route path="/stats" element={<StatsScreen />} />
        <Route path="/notices" element={<NoticesScreen isAdmin={session.moderator.role === 'admin'} />} />
        <Route path="/queues" element={<QueuesScreen session={session} />} />
        <Route path="/waves" element={<WavesScreen session={session} />} />
        <Route path="/rules" element={<RulesScreen isAdmin={session.moderator.role === 'admin'} />} />
        {session.moderator.role === 'admin' && (
          <Route path="/approvals" element={<ApprovalsScreen session={session} />} />
        )}
        {session.moderator.role === 'admin' && <Route path="/audit" element={<AuditScreen />} />}
        {session.moderator.role === 'admin' && <Route path="/templates" element={<TemplatesScreen />} />}
        {session.moderator.role === 'admin' && (
          <Route path="/transparency" element={<TransparencyScreen />} />
        )}
        {session.moderator.role === 'admin' && <Route path="/erasures" element={<ErasuresScreen />} />}
        {session.moderator.role === 'admin' && <Route path="/flaggers" element={<FlaggersScreen />} />}
        {session.moderator.role === 'admin' && <Route path="/compliance" element={<ComplianceScreen />} />}
        <Route path="*" element={<p>There is nothing here. Go back to the queue.</p>} />
      </Routes>
    </Layout>
  );
}

function SignIn({ onSignedIn, notice }: { onSignedIn: (s: Session) => void; notice?: string | undefined }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    try {
      onSignedIn(await signIn(String(form.get('username')), String(form.get('password'))));
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 429
          ? 'Too many failed sign-ins. Wait a moment and try again.'
          : err instanceof ApiError && err.status === 401
            ? 'The username or password is not right.'
            : `Could not sign in: ${(err as Error).message}`,
      );
    } finally {
      setBusy(false);
    }
  }
  return (
    <main className="signin">
      <h1>player-trust moderation</h1>
      {notice && <p role="status">{notice}</p>}
      <form onSubmit={submit} aria-labelledby="signin-title">
        <h2 id="signin-title">Sign in</h2>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <label htmlFor="username">Username</label>
        <input id="username" name="username" autoComplete="username" required autoFocus />
        <label htmlFor="password">Password</label>
        <input id="password" name="password" type="password" autoComplete="current-password" required />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}

const SHORTCUTS: [string, string][] = [
  ['j / k', 'next / previous case in the queue'],
  ['Enter', 'open the selected case'],
  ['x', 'select the case for a bulk action'],
  ['c', 'claim the case (or the appeal, on an appeal)'],
  ['u', 'uphold: choose it and write the note'],
  ['d', 'dismiss: choose it and write the note'],
  ['1 … 9', 'apply a decision template: outcome, sanction, reason for the player'],
  ['n', 'submit and open the next case (Ctrl+Enter in the note and the reason too)'],
  ['/', 'focus the filter'],
  ['g then q', 'back to the queue'],
  ['?', 'show these shortcuts'],
];

function Layout({
  session,
  children,
  onSignedOut,
}: {
  session: Session;
  children: ReactNode;
  onSignedOut: () => void;
}) {
  const [help, setHelp] = useState(false);
  const navigate = useNavigate();
  const pendingG = useRef(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const el = e.target as HTMLElement;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)) {
        if (e.key === 'Escape') el.blur();
        return;
      }
      if (e.key === '?') {
        e.preventDefault();
        setHelp(true);
      } else if (e.key === '/') {
        const filter = document.getElementById('filter');
        if (filter) {
          e.preventDefault();
          filter.focus();
        }
      } else if (e.key === 'g') pendingG.current = true;
      else if (e.key === 'q' && pendingG.current) navigate('/');
      if (e.key !== 'g') pendingG.current = false;
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [navigate]);
  const isAdmin = session.moderator.role === 'admin';
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">player-trust moderation</span>
        <nav aria-label="Main" className="main-nav">
          {navGroups(isAdmin).map((g) => (
            <div key={g.title} className="nav-group" role="group" aria-labelledby={`nav-${g.key}`}>
              <span id={`nav-${g.key}`} className="nav-group-title">
                {g.title}
              </span>
              <span className="nav-links">
                {g.links.map((l) => (
                  <NavLink key={l.to} to={l.to} end={l.to === '/'}>
                    {l.label}
                  </NavLink>
                ))}
              </span>
            </div>
          ))}
        </nav>
        <span className="who">
          {session.moderator.displayName} ({session.moderator.role})
        </span>
        <button type="button" className="link" onClick={() => setHelp(true)}>
          Shortcuts (?)
        </button>
        <button
          type="button"
          onClick={() => {
            void signOut().finally(onSignedOut);
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
      {help && <ShortcutHelp onClose={() => setHelp(false)} />}
    </>
  );
}

/**
 * The console's screens grouped by what people do there (issue 50: fourteen links in a row wrapped
 * at 1280 px): the daily work, the policy that shapes it, the duties toward regulators and people,
 * and administration. A moderator sees the groups' screens open to moderators only.
 */
function navGroups(isAdmin: boolean) {
  const groups: { key: string; title: string; links: { to: string; label: string; admin?: true }[] }[] = [
    {
      key: 'work',
      title: 'Work',
      links: [
        { to: '/', label: 'Queue' },
        { to: '/appeals', label: 'Appeals' },
        { to: '/notices', label: 'Notices' },
      ],
    },
    {
      key: 'policy',
      title: 'Policy',
      links: [
        { to: '/queues', label: 'Queues' },
        { to: '/rules', label: 'Rules' },
        { to: '/waves', label: 'Waves' },
        { to: '/templates', label: 'Templates', admin: true },
        { to: '/approvals', label: 'Approvals', admin: true },
      ],
    },
    {
      key: 'compliance',
      title: 'Compliance',
      links: [
        { to: '/transparency', label: 'EU database', admin: true },
        { to: '/erasures', label: 'Data requests', admin: true },
        { to: '/flaggers', label: 'Trusted flaggers', admin: true },
        { to: '/compliance', label: 'Orders and disputes', admin: true },
      ],
    },
    {
      key: 'admin',
      title: 'Administration',
      links: [
        { to: '/stats', label: 'Stats' },
        { to: '/audit', label: 'Audit log', admin: true },
      ],
    },
  ];
  return groups
    .map((g) => ({ ...g, links: g.links.filter((l) => isAdmin || !l.admin) }))
    .filter((g) => g.links.length > 0);
}

function ShortcutHelp({ onClose }: { onClose: () => void }) {
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    close.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  return (
    <div className="backdrop">
      <div role="dialog" aria-modal="true" aria-labelledby="shortcuts-title" className="dialog">
        <h2 id="shortcuts-title">Keyboard shortcuts</h2>
        <table>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Does</th>
            </tr>
          </thead>
          <tbody>
            {SHORTCUTS.map(([key, does]) => (
              <tr key={key}>
                <td>
                  <kbd>{key}</kbd>
                </td>
                <td>{does}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <button type="button" ref={close} onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  );
}
