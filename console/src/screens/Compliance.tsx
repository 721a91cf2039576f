import { useState, type FormEvent } from 'react';
import {
  listDisputes,
  listOrders,
  putDispute,
  putOrder,
  type AuthorityOrder,
  type AuthorityOrderInput,
  type Dispute,
  type DisputeInput,
} from '../api';
import { ErrorLine } from '../components/ErrorLine';
import { NoticeLine } from '../components/NoticeLine';
import {
  DISPUTE_OUTCOMES,
  DISPUTE_SUBJECTS,
  LIMITS,
  MEMBER_STATES,
  NOTICE_CATEGORIES,
  ORDER_KINDS,
} from '../generated/contract';
import { when } from '../format';
import { useAction, useLoad } from '../hooks';

const KIND_WORDS: Record<string, string> = {
  act: 'To act against illegal content (Art. 9)',
  information: 'To provide information (Art. 10)',
};
const OUTCOME_WORDS: Record<string, string> = {
  for_recipient: 'For the recipient',
  for_platform: 'For the platform',
  settled: 'Settled',
  withdrawn: 'Withdrawn',
};
const categoryWords = (c: string) => NOTICE_CATEGORIES.find(([k]) => k === c)?.[1] ?? c;
/** A datetime-local field's value as an ISO instant (the browser's time zone), or null when empty. */
const instant = (v: FormDataEntryValue | null) => (v && String(v) ? new Date(String(v)).toISOString() : null);
/** An ISO instant as a datetime-local field's value, in the browser's time zone. */
const local = (iso: string | null) => {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const text = (v: FormDataEntryValue | null) => (v && String(v).trim() ? String(v).trim() : undefined);

/**
 * Orders from authorities (DSA Art. 9, 10) and out-of-court disputes (Art. 21), for admins (README
 * "Orders and disputes"): recorded as they come, completed when acted on or closed, counted in the
 * transparency report. Every text an authority or a body gave is rendered as text.
 */
export function ComplianceScreen() {
  const orders = useLoad(listOrders, []);
  const disputes = useLoad(listDisputes, []);
  const { busy, notice, run } = useAction(() => Promise.all([orders.reload(), disputes.reload()]));
  const [order, setOrder] = useState<AuthorityOrder | null>(null);
  const [dispute, setDispute] = useState<Dispute | null>(null);

  async function saveOrder(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const body = {
      platform: String(f.get('platform')).trim(),
      kind: String(f.get('kind')),
      authority: String(f.get('authority')).trim(),
      memberState: String(f.get('memberState')),
      category: String(f.get('category')),
      reference: text(f.get('reference')),
      receivedAt: instant(f.get('receivedAt')),
      acknowledgedAt: instant(f.get('acknowledgedAt')),
      actedAt: instant(f.get('actedAt')),
      action: text(f.get('action')) ?? null,
    } as AuthorityOrderInput;
    const id = order?.id;
    await run(
      async () => {
        await putOrder(body, id);
        setOrder(null);
        form.reset();
      },
      id ? 'Order updated.' : 'Order recorded.',
    );
  }
  async function saveDispute(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const outcome = String(f.get('outcome') ?? '');
    const implemented = String(f.get('implemented') ?? '');
    const body = {
      platform: String(f.get('platform')).trim(),
      body: String(f.get('body')).trim(),
      subject: String(f.get('subject')),
      reference: text(f.get('reference')),
      submittedAt: instant(f.get('submittedAt')),
      closedAt: instant(f.get('closedAt')),
      outcome: outcome || null,
      implemented: implemented === '' ? null : implemented === 'yes',
    } as DisputeInput;
    const id = dispute?.id;
    await run(
      async () => {
        await putDispute(body, id);
        setDispute(null);
        form.reset();
      },
      id ? 'Dispute updated.' : 'Dispute recorded.',
    );
  }

  return (
    <article aria-labelledby="compliance-title">
      <h1 id="compliance-title">Orders and disputes</h1>
      <p>
        Orders from judicial or administrative authorities (DSA Art. 9, 10) and disputes brought to a
        certified out-of-court body (Art. 21). The transparency report counts them for any period.
      </p>
      <NoticeLine notice={notice} />
      <ErrorLine error={orders.error ?? disputes.error} />

      <section aria-labelledby="orders-title">
        <h2 id="orders-title">Orders</h2>
        {orders.data && orders.data.items.length === 0 && <p>No order is recorded.</p>}
        {orders.data && orders.data.items.length > 0 && (
          <table>
            <thead>
              <tr>
                <th scope="col">Received</th>
                <th scope="col">Authority</th>
                <th scope="col">Kind</th>
                <th scope="col">About</th>
                <th scope="col">Receipt told</th>
                <th scope="col">Acted on</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {orders.data.items.map((o) => (
                <tr key={o.id}>
                  <td>{when(o.receivedAt)}</td>
                  <td>
                    {o.authority} ({o.memberState}){o.reference ? `, ${o.reference}` : ''}
                    <div className="muted">{o.platform}</div>
                  </td>
                  <td>{KIND_WORDS[o.kind] ?? o.kind}</td>
                  <td>{categoryWords(o.category)}</td>
                  <td>{o.acknowledgedAt ? when(o.acknowledgedAt) : 'not yet'}</td>
                  <td>{o.actedAt ? `${when(o.actedAt)}: ${o.action ?? ''}` : 'not yet'}</td>
                  <td>
                    <button type="button" onClick={() => setOrder(o)}>
                      Edit the order of {o.authority}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <form onSubmit={saveOrder} aria-labelledby="order-form-title" key={order?.id ?? 'new-order'}>
          <h3 id="order-form-title">{order ? `Edit the order of ${order.authority}` : 'Record an order'}</h3>
          <label>
            Platform (operator, or a studio id)
            <input
              name="platform"
              required
              maxLength={LIMITS.platform}
              defaultValue={order?.platform ?? 'operator'}
            />
          </label>
          <label>
            Kind
            <select name="kind" defaultValue={order?.kind ?? 'act'}>
              {ORDER_KINDS.map((k) => (
                <option key={k} value={k}>
                  {KIND_WORDS[k] ?? k}
                </option>
              ))}
            </select>
          </label>
          <label>
            Authority
            <input
              name="authority"
              required
              maxLength={LIMITS.orderAuthority}
              defaultValue={order?.authority}
            />
          </label>
          <label>
            Member State
            <select name="memberState" defaultValue={order?.memberState ?? 'DE'}>
              {MEMBER_STATES.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          </label>
          <label>
            Type of illegal content
            <select
              name="category"
              defaultValue={order?.category ?? 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH'}
            >
              {NOTICE_CATEGORIES.map(([k, words]) => (
                <option key={k} value={k}>
                  {words}
                </option>
              ))}
            </select>
          </label>
          <label>
            Reference
            <input name="reference" maxLength={LIMITS.orderReference} defaultValue={order?.reference ?? ''} />
          </label>
          <label>
            Received
            <input
              type="datetime-local"
              name="receivedAt"
              required
              defaultValue={local(order?.receivedAt ?? null)}
            />
          </label>
          <label>
            Authority told of its receipt
            <input
              type="datetime-local"
              name="acknowledgedAt"
              defaultValue={local(order?.acknowledgedAt ?? null)}
            />
          </label>
          <label>
            Effect given
            <input type="datetime-local" name="actedAt" defaultValue={local(order?.actedAt ?? null)} />
          </label>
          <label>
            What was done (with the date above)
            <textarea name="action" maxLength={LIMITS.orderAction} defaultValue={order?.action ?? ''} />
          </label>
          <button type="submit" disabled={busy}>
            {order ? 'Save the order' : 'Record the order'}
          </button>
          {order && (
            <>
              {' '}
              <button type="button" onClick={() => setOrder(null)}>
                Cancel
              </button>
            </>
          )}
        </form>
      </section>

      <section aria-labelledby="disputes-title">
        <h2 id="disputes-title">Out-of-court disputes</h2>
        {disputes.data && disputes.data.items.length === 0 && <p>No dispute is recorded.</p>}
        {disputes.data && disputes.data.items.length > 0 && (
          <table>
            <thead>
              <tr>
                <th scope="col">Submitted</th>
                <th scope="col">Body</th>
                <th scope="col">About</th>
                <th scope="col">Outcome</th>
                <th scope="col">Implemented</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {disputes.data.items.map((d) => (
                <tr key={d.id}>
                  <td>{when(d.submittedAt)}</td>
                  <td>
                    {d.body}
                    {d.reference ? `, ${d.reference}` : ''}
                    <div className="muted">{d.platform}</div>
                  </td>
                  <td>{d.subject}</td>
                  <td>
                    {d.outcome ? `${OUTCOME_WORDS[d.outcome] ?? d.outcome}, ${when(d.closedAt)}` : 'open'}
                  </td>
                  <td>{d.implemented === null ? '—' : d.implemented ? 'yes' : 'no'}</td>
                  <td>
                    <button type="button" onClick={() => setDispute(d)}>
                      Edit the dispute at {d.body}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <form onSubmit={saveDispute} aria-labelledby="dispute-form-title" key={dispute?.id ?? 'new-dispute'}>
          <h3 id="dispute-form-title">
            {dispute ? `Edit the dispute at ${dispute.body}` : 'Record a dispute'}
          </h3>
          <label>
            Platform (operator, or a studio id)
            <input
              name="platform"
              required
              maxLength={LIMITS.platform}
              defaultValue={dispute?.platform ?? 'operator'}
            />
          </label>
          <label>
            Certified body
            <input name="body" required maxLength={LIMITS.disputeBody} defaultValue={dispute?.body} />
          </label>
          <label>
            About
            <select name="subject" defaultValue={dispute?.subject ?? 'sanction'}>
              {DISPUTE_SUBJECTS.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          <label>
            Reference
            <input
              name="reference"
              maxLength={LIMITS.disputeReference}
              defaultValue={dispute?.reference ?? ''}
            />
          </label>
          <label>
            Submitted
            <input
              type="datetime-local"
              name="submittedAt"
              required
              defaultValue={local(dispute?.submittedAt ?? null)}
            />
          </label>
          <label>
            Closed
            <input type="datetime-local" name="closedAt" defaultValue={local(dispute?.closedAt ?? null)} />
          </label>
          <label>
            Outcome (with the date above)
            <select name="outcome" defaultValue={dispute?.outcome ?? ''}>
              <option value="">open</option>
              {DISPUTE_OUTCOMES.map((o) => (
                <option key={o} value={o}>
                  {OUTCOME_WORDS[o] ?? o}
                </option>
              ))}
            </select>
          </label>
          <label>
            The body&apos;s decision implemented
            <select
              name="implemented"
              defaultValue={
                dispute?.implemented === null || !dispute ? '' : dispute.implemented ? 'yes' : 'no'
              }
            >
              <option value="">not said</option>
              <option value="yes">yes</option>
              <option value="no">no</option>
            </select>
          </label>
          <button type="submit" disabled={busy}>
            {dispute ? 'Save the dispute' : 'Record the dispute'}
          </button>
          {dispute && (
            <>
              {' '}
              <button type="button" onClick={() => setDispute(null)}>
                Cancel
              </button>
            </>
          )}
        </form>
      </section>
    </article>
  );
}
