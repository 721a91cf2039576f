import { expect } from 'chai';
import {
  createTenant,
  createTestModerator,
  startTestApi,
  type Tenant,
  type TestApi,
  type TestModerator,
} from '../helpers/app.js';
import { call } from '../helpers/http.js';

interface Order {
  id: string;
  platform: string;
  kind: string;
  acknowledgedAt: string | null;
  actedAt: string | null;
  action: string | null;
  recordedBy: string;
  updatedBy: string | null;
  code?: string;
  errors?: { field: string; message: string }[];
}
type Row = { section: string; field: string; breakdown: string; value: unknown };

/**
 * Issue 51: the compliance officer records orders from authorities (DSA Art. 9, 10) and out-of-court
 * disputes (Art. 21); the transparency report counts them for any period and platform, with the
 * median times the regulation asks for.
 */
describe('orders and disputes (issue 51)', function () {
  this.timeout(60_000);
  let api: TestApi;
  let admin: TestModerator;
  let mod: TestModerator;
  let studio: Tenant;
  let other: Tenant;

  before(async () => {
    api = await startTestApi();
    [admin, mod] = [await createTestModerator(api, 'admin'), await createTestModerator(api)];
    studio = await createTenant(api.pool, 'Orders');
    other = await createTenant(api.pool, 'Elsewhere');
  });
  after(async () => {
    await api?.close();
  });

  const order = (json: Record<string, unknown>, id?: string, who = admin) =>
    call<Order>(
      api.url,
      id ? 'PUT' : 'POST',
      id ? `/v1/admin/compliance/orders/${id}` : '/v1/admin/compliance/orders',
      {
        spec: id ? '/v1/admin/compliance/orders/{orderId}' : '/v1/admin/compliance/orders',
        headers: who.headers,
        json,
      },
    );
  const dispute = (json: Record<string, unknown>, id?: string) =>
    call<Order>(
      api.url,
      id ? 'PUT' : 'POST',
      id ? `/v1/admin/compliance/disputes/${id}` : '/v1/admin/compliance/disputes',
      {
        spec: id ? '/v1/admin/compliance/disputes/{disputeId}' : '/v1/admin/compliance/disputes',
        headers: admin.headers,
        json,
      },
    );
  const report = async (from: string, to: string, platform: string) => {
    const res = await call<{ rows: Row[] }>(
      api.url,
      'GET',
      `/v1/admin/transparency-report?from=${from}&to=${to}&platform=${platform}`,
      { spec: '/v1/admin/transparency-report', headers: admin.headers },
    );
    expect(res.status, res.text).to.equal(200);
    return (field: string, breakdown = 'total') =>
      res.body.rows.find((r) => r.field === field && r.breakdown === breakdown)?.value;
  };
  const base = (over: Record<string, unknown> = {}) => ({
    platform: studio.studioId,
    kind: 'act',
    authority: 'Staatsanwaltschaft Berlin <script>',
    memberState: 'DE',
    category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
    reference: 'AZ 123/26',
    receivedAt: '2026-03-02T10:00:00Z',
    ...over,
  });

  it('records an order when it arrives, completes it when acted on, and the report counts it with its median times, by period and platform', async () => {
    const a = await order(base());
    expect(a.status, a.text).to.equal(201);
    expect(a.body).to.include({ acknowledgedAt: null, actedAt: null, recordedBy: admin.id, updatedBy: null });
    const done = await order(
      base({
        acknowledgedAt: '2026-03-02T12:00:00Z',
        actedAt: '2026-03-03T10:00:00Z',
        action: 'The account was suspended and its chat lines kept for the authority.',
      }),
      a.body.id,
    );
    expect(done.status, done.text).to.equal(200);
    expect(done.body).to.include({ actedAt: '2026-03-03T10:00:00.000Z', updatedBy: admin.id });
    // Two more: one to act from France (acted in 4 h), one for information (July, not acted yet).
    expect(
      (
        await order(
          base({
            memberState: 'FR',
            category: 'STATEMENT_CATEGORY_PROTECTION_OF_MINORS',
            receivedAt: '2026-04-10T08:00:00Z',
            acknowledgedAt: '2026-04-10T09:00:00Z',
            actedAt: '2026-04-10T12:00:00Z',
            action: 'Removed.',
          }),
        )
      ).status,
    ).to.equal(201);
    expect((await order(base({ kind: 'information', receivedAt: '2026-07-01T08:00:00Z' }))).status).to.equal(
      201,
    );
    // Another studio's, and the operator's: not this studio's figures (the operator's counted by what
    // this test adds: other suites record theirs in the same database).
    const operatorActs = async () =>
      (await report('2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z', 'operator'))('number_of_orders_to_act');
    const operatorBefore = (await operatorActs()) as number;
    expect((await order(base({ platform: other.studioId }))).status).to.equal(201);
    expect((await order(base({ platform: 'operator' }))).status).to.equal(201);

    const year = await report('2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z', studio.studioId);
    expect(year('number_of_orders_to_act')).to.equal(2);
    expect(year('number_of_orders_to_act', 'member_state:DE')).to.equal(1);
    expect(year('number_of_orders_to_act', 'member_state:FR')).to.equal(1);
    expect(year('number_of_orders_to_act', 'STATEMENT_CATEGORY_PROTECTION_OF_MINORS')).to.equal(1);
    expect(year('number_of_orders_to_act_median_time_to_inform_of_receipt_hours')).to.equal(1.5);
    expect(year('number_of_orders_to_act_median_time_to_give_effect_hours')).to.equal(14);
    expect(year('number_of_orders_to_provide_information')).to.equal(1);
    expect(year('number_of_orders_to_provide_information_median_time_to_give_effect_hours')).to.equal('');

    const firstHalf = await report('2026-01-01T00:00:00Z', '2026-07-01T00:00:00Z', studio.studioId);
    expect([
      firstHalf('number_of_orders_to_act'),
      firstHalf('number_of_orders_to_provide_information'),
    ]).to.deep.equal([2, 0]);
    const march = await report('2026-03-01T00:00:00Z', '2026-04-01T00:00:00Z', studio.studioId);
    expect(march('number_of_orders_to_act')).to.equal(1);
    expect(await operatorActs()).to.equal(operatorBefore + 1);
    expect(
      (await report('2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z', 'all'))('number_of_orders_to_act'),
    ).to.be.at.least(4);
  });

  it('refuses what cannot be so, with every field named, and stores nothing; only admins record', async () => {
    const before = (await api.pool.query('SELECT count(*)::int AS n FROM authority_orders')).rows[0].n;
    const bad = await order(
      base({
        platform: '00000000-0000-4000-8000-000000000000',
        memberState: 'US',
        receivedAt: '2999-01-01T00:00:00Z',
      }),
    );
    expect(bad.status).to.equal(400);
    expect(bad.body.errors!.map((e) => e.field)).to.deep.equal(['memberState']);
    const later = await order(
      base({ platform: 'nowhere', receivedAt: '2999-01-01T00:00:00Z', actedAt: '2026-01-01T00:00:00Z' }),
    );
    expect(later.status).to.equal(400);
    expect(later.body.errors!.map((e) => e.field).sort()).to.deep.equal([
      'actedAt',
      'action',
      'platform',
      'receivedAt',
    ]);
    const unknown = await order(base(), '00000000-0000-4000-8000-000000000000');
    expect(unknown.status).to.equal(404);
    const notAdmin = await order(base(), undefined, mod);
    expect(notAdmin.status).to.equal(403);
    expect((await api.pool.query('SELECT count(*)::int AS n FROM authority_orders')).rows[0].n).to.equal(
      before,
    );
  });

  it('records disputes and their outcomes; the report counts them, the median time to complete and the share implemented', async () => {
    const d = {
      platform: studio.studioId,
      body: 'User Rights ADR <b>',
      subject: 'sanction',
      submittedAt: '2026-05-01T00:00:00Z',
    };
    const a = await dispute(d);
    expect(a.status, a.text).to.equal(201);
    const half = await dispute({ ...d, closedAt: '2026-05-11T00:00:00Z' }, a.body.id);
    expect(half.status).to.equal(400);
    expect(half.body.errors!.map((e) => e.field)).to.deep.equal(['outcome']);
    const early = await dispute({ ...d, implemented: true });
    expect(early.status).to.equal(400);
    const closed = await dispute(
      { ...d, closedAt: '2026-05-11T00:00:00Z', outcome: 'for_recipient', implemented: true },
      a.body.id,
    );
    expect(closed.status, closed.text).to.equal(200);
    expect(
      (
        await dispute({
          ...d,
          subject: 'notice',
          closedAt: '2026-05-21T00:00:00Z',
          outcome: 'for_platform',
          implemented: false,
        })
      ).status,
    ).to.equal(201);
    expect((await dispute({ ...d, subject: 'complaint' })).status).to.equal(201);

    const year = await report('2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z', studio.studioId);
    expect(year('number_of_disputes_submitted')).to.equal(3);
    expect(year('dispute_outcomes', 'for_recipient')).to.equal(1);
    expect(year('dispute_outcomes', 'for_platform')).to.equal(1);
    expect(year('dispute_outcomes', 'open')).to.equal(1);
    expect(year('median_time_to_complete_days')).to.equal(15);
    expect(year('share_of_decisions_implemented', 'implemented / decided')).to.equal(0.5);

    // Paged two at a time, newest first: every dispute once (other suites' too), this test's three
    // newest-first among them.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: {
        status: number;
        text: string;
        body: { items: { id: string }[]; nextCursor: string | null };
      } = await call(
        api.url,
        'GET',
        `/v1/admin/compliance/disputes?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        { spec: '/v1/admin/compliance/disputes', headers: admin.headers },
      );
      expect(page.status, page.text).to.equal(200);
      expect(page.body.items.length).to.be.at.most(2);
      seen.push(...page.body.items.map((i) => i.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(new Set(seen).size, 'no dispute twice').to.equal(seen.length);
    const { rows: ours } = await api.pool.query<{ id: string }>(
      'SELECT id FROM disputes WHERE platform = $1 ORDER BY created_at DESC, id DESC',
      [studio.studioId],
    );
    expect(ours).to.have.length(3);
    expect(seen.filter((id) => ours.some((o) => o.id === id))).to.deep.equal(ours.map((o) => o.id));
  });
});
