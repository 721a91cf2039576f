import fs from 'node:fs';
import { expect } from 'chai';
import type { Deprecation } from '../../api/deprecations.js';
import { CONTRACT_VERSION, openApiDocument } from '../../api/openapi.js';
import { createTenant, createTestPlayer, startTestApi, type TestApi } from '../helpers/app.js';

/** The compatibility promise (docs/studios.md "Compatibility", CHANGELOG.md, api/deprecations.ts). */
describe('compatibility promise to studios', function () {
  this.timeout(30_000);

  it("the document's info.version is the newest version of CHANGELOG.md, and each entry is dated", () => {
    const changelog = fs.readFileSync('CHANGELOG.md', 'utf8');
    const versions = [...changelog.matchAll(/^## (\d+\.\d+\.\d+) \((\d{4}-\d{2}-\d{2})\)$/gm)];
    expect(versions.length).to.be.greaterThan(1);
    expect(versions[0]![1]).to.equal(CONTRACT_VERSION);
    expect(openApiDocument.info.version).to.equal(CONTRACT_VERSION);
    const dates = versions.map((v) => v[2]!);
    expect([...dates].sort().reverse()).to.deep.equal(dates); // newest first
  });

  describe('a deprecated operation', () => {
    let api: TestApi;
    const deprecation: Deprecation = {
      method: 'get',
      path: '/v1/player/{serviceId}/trust-history',
      since: '2026-12-01T00:00:00Z',
      sunset: '2027-06-01T00:00:00Z',
      successor: '/v1/player/{serviceId}/score-history',
      note: 'Replaced by the score history.',
    };
    before(async () => {
      api = await startTestApi({}, { deprecations: [deprecation] });
    });
    after(() => api.close());

    it('answers with Deprecation (RFC 9745) and Sunset (RFC 8594), errors too; others answer without', async () => {
      const tenant = await createTenant(api.pool);
      const player = await createTestPlayer(api.pool);
      const ok = await fetch(`${api.url}/v1/player/${player.serviceId}/trust-history`, {
        headers: tenant.headers,
      });
      expect(ok.status).to.equal(200);
      expect(ok.headers.get('deprecation')).to.equal(`@${Date.parse(deprecation.since) / 1000}`);
      expect(ok.headers.get('sunset')).to.equal('Tue, 01 Jun 2027 00:00:00 GMT');
      expect(ok.headers.get('link'))
        .to.include('rel="deprecation"')
        .and.include(`<${deprecation.successor}>; rel="successor-version"`);
      const missing = await fetch(`${api.url}/v1/player/nobody-here/trust-history`, {
        headers: tenant.headers,
      });
      expect(missing.status).to.equal(404);
      expect(missing.headers.get('deprecation')).to.not.equal(null);
      const other = await fetch(`${api.url}/v1/player/${player.serviceId}`, { headers: tenant.headers });
      expect(other.headers.get('deprecation')).to.equal(null);
      expect(other.headers.get('sunset')).to.equal(null);
    });

    it('is deprecated: true in the document it serves, with its dates', async () => {
      const doc = (await (await fetch(`${api.url}/v1/openapi.json`)).json()) as typeof openApiDocument;
      const op = doc.paths['/v1/player/{serviceId}/trust-history'].get as {
        deprecated?: boolean;
        description?: string;
      };
      expect(op.deprecated).to.equal(true);
      expect(op.description).to.include('sunset 2027-06-01T00:00:00Z');
      expect((doc.paths['/v1/player/{serviceId}'].get as { deprecated?: boolean }).deprecated).to.equal(
        undefined,
      );
    });
  });
});
