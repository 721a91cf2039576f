import { Link } from 'react-router';
import { extendSanction, getLinks, type Sanction } from '../api';
import { when } from '../format';
import { useAction, useLoad } from '../hooks';
import { NoticeLine } from './NoticeLine';
import { ErrorLine } from './ErrorLine';
import { LinksPicture } from './LinksPicture';

const KIND_WORDS: Record<string, string> = {
  hardware_id: 'device',
  install_id: 'install',
  ip_address: 'network',
  payment_fingerprint: 'payment instrument',
  phone: 'phone',
  email: 'e-mail',
  platform_account: 'platform account',
};

/**
 * A player's linked accounts (docs/linked-accounts.md): by which kinds, how strong, since when, and
 * each account's standing; and, for each ban or restriction of the player in force, the moderator's
 * choice to extend it to the strongly linked accounts (never automatic: a household shares a console).
 */
export function LinkedAccounts({
  serviceId,
  sanctions,
  onChange,
}: {
  serviceId: string;
  sanctions: Sanction[];
  onChange: () => Promise<unknown>;
}) {
  const links = useLoad(() => getLinks(serviceId), [serviceId]);
  const { notice, run, busy } = useAction(async () => {
    await links.reload();
    await onChange();
  });
  const strong = links.data?.links.filter((l) => l.strength >= 0.8) ?? [];
  const extendable = sanctions.filter((s) => s.active && s.type !== 'warning');

  const extend = (s: Sanction) =>
    run(
      () => extendSanction(s.id),
      (done) =>
        done.sanctions.length === 0
          ? `Nothing placed: ${done.skipped.length ? `${done.skipped.length} already sanctioned` : 'no strongly linked account'}.`
          : `Placed a ${s.type.replace(/_/g, ' ')} on ${done.sanctions.map((x) => x.serviceId).join(', ')}.`,
    );

  return (
    <section aria-labelledby="links-title">
      <h2 id="links-title">Linked accounts</h2>
      <NoticeLine notice={notice} />
      {links.error && <ErrorLine error={links.error} />}
      {!links.data ? (
        <p>Loading…</p>
      ) : links.data.links.length === 0 ? (
        <p>None: no studio's signals link this player to another account.</p>
      ) : (
        <>
          <LinksPicture links={links.data.links} among={links.data.among} />
          <table>
            <thead>
              <tr>
                <th scope="col">Account</th>
                <th scope="col">Shares</th>
                <th scope="col">Strength</th>
                <th scope="col">Since</th>
                <th scope="col">Standing</th>
              </tr>
            </thead>
            <tbody>
              {links.data.links.map((l) => (
                <tr key={`${l.studioId}/${l.serviceId}`}>
                  <td>
                    <Link to={`/players/${encodeURIComponent(l.serviceId)}`}>{l.gamerTag}</Link>{' '}
                    <span className="muted">{l.serviceId}</span>
                  </td>
                  <td>{l.kinds.map((k) => KIND_WORDS[k] ?? k).join(', ')}</td>
                  <td>
                    {l.strength.toFixed(2)} {l.strength >= 0.8 ? '(strong)' : '(weak)'}
                  </td>
                  <td>{when(l.since)}</td>
                  <td>
                    trust {l.trustScore}
                    {l.activeSanctions.length
                      ? `; ${l.activeSanctions.map((s) => s.type.replace(/_/g, ' ')).join(', ')}`
                      : ''}
                    {l.evasionSuspected ? '; suspected of evading a ban' : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {strong.length > 0 &&
        extendable.map((s) => (
          <p key={s.id}>
            <button type="button" disabled={busy} onClick={() => void extend(s)}>
              Extend the {s.type.replace(/_/g, ' ')} to the {strong.length} strongly linked{' '}
              {strong.length === 1 ? 'account' : 'accounts'}
            </button>{' '}
            <span className="muted">each gets its own sanction, statement of reasons and appeal</span>
          </p>
        ))}
    </section>
  );
}
